"""Red-team family 'checkpoint tables' (issue 30, defects 10 and 11): a checkpoint whose
tokenizer table or tensors were edited, with its hash recomputed so that the file checks out,
is refused with one message naming what is wrong, before a model is built, instead of a raw
KeyError, TypeError, RecursionError or an index past the end while writing."""

from __future__ import annotations

import hashlib
import json

import pytest
import torch
from safetensors.torch import load, save

from workbench.app.inspection_backend import InspectionBackend, snapshot_from_checkpoint
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.models import LstmConfig, config_to_dict
from workbench.core.corpus.tokenizers import CharTokenizer, tokenizer_from_dict
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.models import build_model
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


def _edit_tokenizer(path, change):
    meta = json.loads(path.read_text())
    change(meta["tokenizer"])
    atomic_write(path, json.dumps(meta).encode())


def _edit_weights(path, change):
    """Change the tensors and write the hash they now have, as a careful attacker would."""
    meta = json.loads(path.read_text())
    weights = path.parent / meta["weights"]
    tensors = load(weights.read_bytes())
    change(tensors)
    data = save(tensors)
    weights.write_bytes(data)
    meta["weights_sha256"] = hashlib.sha256(data).hexdigest()
    atomic_write(path, json.dumps(meta).encode())


TABLE_DAMAGE = {
    "no symbols": (lambda t: t.pop("symbols"), "has no 'symbols' list"),
    "symbols = 5": (lambda t: t.update(symbols=5), "'symbols' is 5, not a list"),
    "multi-character symbol": (lambda t: t["symbols"].__setitem__(0, "ab"),
                               "'ab': 2 characters, not one"),
    "numbers as symbols": (lambda t: t.update(symbols=list(range(7))), "is 0, not text"),
    "a symbol twice": (lambda t: t["symbols"].__setitem__(0, t["symbols"][1]), "twice"),
    "word without its pattern": (lambda t: t.update(kind="word"), "has no 'pattern'"),
    "garbage BPE JSON": (lambda t: t.update(kind="bpe", tokenizer_json="{garbage"),
                         "BPE JSON cannot be read"),
    "BPE JSON nested 200,000 deep": (
        lambda t: t.update(kind="bpe", tokenizer_json="[" * 200_000 + "]" * 200_000),
        "BPE JSON cannot be read"),
    "BPE JSON not text": (lambda t: t.update(kind="bpe", tokenizer_json=5), "is 5, not text"),
    "unknown kind": (lambda t: t.update(kind="morse"), "kind is 'morse'"),
    "boundaries not text": (lambda t: t.update(boundaries=[1]), "'boundaries' is \\[1\\]"),
    "fewer symbols than outputs": (lambda t: t.update(symbols=["a"]),
                                   "5 entries but the model's vocab_size is 11"),
    "more symbols than outputs": (lambda t: t.update(symbols=list("abcdefghijklmnop")),
                                  "20 entries but the model's vocab_size is 11"),
}


@pytest.mark.parametrize("name", list(TABLE_DAMAGE))
@pytest.mark.slow
def test_a_damaged_tokenizer_table_is_named_when_the_checkpoint_opens(saved, name):
    change, message = TABLE_DAMAGE[name]
    _edit_tokenizer(saved, change)
    with pytest.raises(UserFacingError, match=message):
        snapshot_from_checkpoint(saved)


@pytest.mark.parametrize("name", [n for n in TABLE_DAMAGE if "outputs" not in n])
def test_a_damaged_table_reaching_the_tokenizer_builder_is_a_user_error(name):
    table = json.loads(json.dumps(TOKENIZER.to_dict()))  # to_dict shares its lists
    TABLE_DAMAGE[name][0](table)
    with pytest.raises(UserFacingError, match="tokenizer cannot be used"):
        tokenizer_from_dict(table)  # a snapshot handed in without the checkpoint's check


def _to(dtype):
    def change(tensors):
        for key in [k for k in tensors if k.startswith("model.")]:
            tensors[key] = tensors[key].to(dtype)
    return change


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.slow
def test_floating_weights_of_another_precision_open_and_write(saved, dtype):
    _edit_weights(saved, _to(dtype))
    snapshot = snapshot_from_checkpoint(saved)
    events = list(drive(InspectionBackend().generation_job(
        snapshot, "to", GenerationConfig(max_tokens=5)), JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    assert all(isinstance(v, torch.Tensor) or v.dtype.name == "float32"
               for v in snapshot.weights.values())


@pytest.mark.parametrize("dtype", [torch.int8, torch.bool, torch.complex64])
def test_weights_that_are_not_real_numbers_are_refused(saved, dtype):
    _edit_weights(saved, _to(dtype))
    with pytest.raises(UserFacingError, match="not floating-point numbers"):
        snapshot_from_checkpoint(saved)


def test_a_manifest_nested_200000_deep_is_damaged_not_a_recursion_error(saved):
    text = saved.read_text()
    saved.write_text(text[:-1] + ', "sample": ' + "[" * 200_000 + "]" * 200_000 + "}")
    with pytest.raises(UserFacingError, match="nested too deeply"):
        snapshot_from_checkpoint(saved)
