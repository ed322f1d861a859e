"""Checkpoint metadata is checked by schema and against its own weights before anything is
built: a missing key, a negative step, an edited config or a vocabulary of millions are named,
not raw KeyErrors, torch errors or gigabytes allocated."""

from __future__ import annotations

import json

import pytest
import torch

from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.models import LstmConfig, config_to_dict
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_model
from workbench.core.training import model_budget
from workbench.core.training.checkpoint_files import atomic_write
from workbench.core.training.checkpoints import save_checkpoint

TOKENIZER = CharTokenizer.train("to be or not to be")


@pytest.fixture
def saved(tmp_path):
    config = LstmConfig(hidden_size=8, embedding_size=8, vocab_size=TOKENIZER.vocab_size)
    model = build_model(config)
    meta = {"step": 5, "model_config": config_to_dict(config), "tokenizer": TOKENIZER.to_dict(),
            "run_name": "r", "metrics": {"val_loss": 2.0}}
    save_checkpoint(tmp_path, "latest", model, torch.optim.SGD(model.parameters(), lr=0.1),
                    meta)
    return tmp_path / "latest.json"


def _edit(path, **changes):
    meta = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            meta.pop(key)
        elif key == "model_config":
            meta[key].update(value)
        else:
            meta[key] = value
    atomic_write(path, json.dumps(meta).encode())


def test_an_intact_checkpoint_opens(saved):
    assert snapshot_from_checkpoint(saved).step == 5


@pytest.mark.parametrize("changes, message", [
    ({"tokenizer": None}, "the key 'tokenizer' is missing"),
    ({"step": -100}, "'step' is -100"),
    ({"step": "5"}, "'step' is '5'"),
    ({"lr_scale": -1.0}, "'lr_scale' is -1.0"),
    ({"stepp": 3}, "unknown key 'stepp'"),
    ({"model_config": {"hiden_size": 9}}, "did you mean 'hidden_size'"),
    ({"model_config": {"arch": "lstn"}}, "Did you mean 'lstm'"),
])
def test_damaged_metadata_is_named(saved, changes, message):
    _edit(saved, **changes)
    with pytest.raises(UserFacingError, match=message):
        snapshot_from_checkpoint(saved)


def test_a_config_that_does_not_match_the_weights_is_named_before_building(saved):
    _edit(saved, model_config={"hidden_size": 12})
    with pytest.raises(UserFacingError, match="settings give 'embedding.weight'|shape"):
        snapshot_from_checkpoint(saved)


def test_a_claimed_vocabulary_of_millions_allocates_nothing(saved, monkeypatch):
    _edit(saved, model_config={"vocab_size": 3_000_000})
    allocated = []
    monkeypatch.setattr(model_budget, "check_memory", lambda *a: allocated.append(a))
    with pytest.raises(UserFacingError, match="do not match its weights|saved tensor is|"
                                              "model's vocab_size is 3,000,000"):
        snapshot_from_checkpoint(saved)
    assert not allocated  # refused at the tokenizer or shape check, before the memory one


def test_a_model_larger_than_free_memory_is_refused_with_its_size(monkeypatch):
    monkeypatch.setattr(model_budget, "available_memory_bytes", lambda: 2**30)
    shapes = model_budget.shapes_on_meta(lambda: build_model(
        LstmConfig(hidden_size=4096, embedding_size=1024, num_layers=4, vocab_size=50_000)))
    with pytest.raises(UserFacingError, match=r"needs about \d+\.\d GB .* only 1\.0 GB"):
        model_budget.check_memory(shapes, model_budget.TRAINING_BYTES, "Training this model")


def test_training_a_model_too_large_for_memory_is_refused_before_building(tmp_path,
                                                                          monkeypatch):
    from training_fixtures import events_of, tiny_request

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(model_budget, "available_memory_bytes", lambda: 1000)
    failed = events_of(tiny_request(tmp_path))[-1]
    assert type(failed).__name__ == "JobFailed" and "only 0.0 GB of memory is free" in \
        failed.message


@pytest.mark.parametrize("where", ["model_config", "pretrained_encoder"])
def test_an_unknown_key_in_a_nested_encoder_is_named(where):
    """A classifier's encoder, and the pretrained encoder a fine-tuning run records, are
    checked as strictly as a model's own settings: an unknown key was dropped silently and
    the encoder rebuilt with a default in its place."""
    from workbench.core.config.task_models import ClassifierModelConfig
    from workbench.core.training.checkpoint_meta import check_meta
    from workbench.core.training.checkpoints import FORMAT

    encoder = {**config_to_dict(LstmConfig(hidden_size=8, embedding_size=8,
                                           vocab_size=TOKENIZER.vocab_size)), "hiden_size": 9}
    model = ClassifierModelConfig(num_labels=2)
    meta = {"format": FORMAT, "step": 5, "run_name": "r", "weights_sha256": "0" * 64,
            "model_config": config_to_dict(model),
            "tokenizer": TOKENIZER.to_dict()}
    target = meta["model_config"] if where == "model_config" else meta["tokenizer"]
    target["encoder" if where == "model_config" else "pretrained_encoder"] = encoder
    with pytest.raises(UserFacingError, match=r"encoder.*unknown key 'hiden_size' \(did you "
                                              r"mean 'hidden_size'\?\)"):
        check_meta(meta, "run r")
    encoder.pop("hiden_size")
    check_meta(meta, "run r")  # the same table without it passes
