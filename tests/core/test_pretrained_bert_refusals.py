"""Every damaged or unsupported BERT folder gets a message that names what is wrong and what
to do, before any weight is allocated (issue 34 item 1); and a masked-LM checkpoint the app
wrote before BERT's options existed still opens as it did."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tests.core.pretrained_folders import make_bert_folder
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.jobs import UserFacingError


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return make_bert_folder(tmp_path_factory.mktemp("models") / "bert-good")


@pytest.fixture
def folder(tmp_path, original):
    copy = tmp_path / "bert-copy"
    shutil.copytree(original, copy)
    return copy


def edit_config(folder, **changes):
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))


def refusal(folder) -> str:
    with pytest.raises(UserFacingError) as caught:
        snapshot_from_checkpoint(folder)
    return str(caught.value)


@pytest.mark.parametrize("option, words", [
    ({"position_embedding_type": "relative_key"}, "positions are 'relative_key'"),
    ({"is_decoder": True}, "sets 'is_decoder'"),
    ({"add_cross_attention": True}, "sets 'add_cross_attention'"),
    ({"hidden_act": "swish"}, "activation 'swish'"),
    ({"num_hidden_layers": "two"}, "'num_hidden_layers' as 'two'"),
    ({"num_attention_heads": 5}, "must divide"),
    ({"layer_norm_eps": 0}, "LayerNorm ε"),
])
def test_an_option_the_encoder_does_not_compute_is_named(folder, option, words):
    edit_config(folder, **option)
    assert words in refusal(folder)


def test_missing_files_say_what_to_copy(folder, original):
    (folder / "tokenizer.json").unlink()
    assert "no tokenizer.json" in refusal(folder)
    shutil.copy(original / "tokenizer.json", folder / "tokenizer.json")
    (folder / "model.safetensors").unlink()
    assert "has no model.safetensors" in refusal(folder)


def test_sharded_weights_are_named(folder):
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text('{"weight_map": {}}')
    assert "several shards" in refusal(folder)


def test_a_cut_short_weights_file_is_damaged_not_a_crash(folder):
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    message = refusal(folder)
    assert "cut short" in message and "copy the model folder again" in message


def test_weights_of_other_sizes_are_named_by_tensor(folder):
    edit_config(folder, intermediate_size=64)
    message = refusal(folder)
    assert "shape" in message and "ff_in.weight" in message


def test_a_bert_without_its_masked_lm_head_says_so(folder):
    """A bare BertModel (or a classifier) has no cls.predictions to fill a blank with."""
    from safetensors.numpy import load_file, save_file

    path = folder / "model.safetensors"
    tensors = {k: v for k, v in load_file(str(path)).items() if not k.startswith("cls.")}
    save_file(tensors, str(path), metadata={"format": "pt"})
    assert "no masked-LM head (cls.predictions)" in refusal(folder)


def test_a_tokenizer_without_mask_belongs_to_another_model(folder):
    description = json.loads((folder / "tokenizer.json").read_text())
    for token in description["added_tokens"]:
        if token["content"] == "[MASK]":
            token["special"] = False  # an ordinary word now: no [MASK] to fill
    (folder / "tokenizer.json").write_text(json.dumps(description))
    assert "no [MASK] token" in refusal(folder)


def test_older_names_and_buffers_are_read(folder, original):
    """Files converted from TensorFlow call LayerNorm's weight and bias gamma and beta, and
    BertForPreTraining files carry a pooler, a next-sentence head and a position-id buffer."""
    from safetensors.numpy import load_file, save_file

    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    renamed = {k.replace("LayerNorm.weight", "LayerNorm.gamma")
               .replace("LayerNorm.bias", "LayerNorm.beta"): v for k, v in tensors.items()}
    width = tensors["bert.embeddings.position_embeddings.weight"].shape[1]
    renamed.update({"bert.pooler.dense.weight": np.zeros((width, width), np.float32),
                    "cls.seq_relationship.weight": np.zeros((2, width), np.float32),
                    "bert.embeddings.position_ids": np.arange(64, dtype=np.int64)[None]})
    save_file(renamed, str(path), metadata={"format": "pt"})
    same = snapshot_from_checkpoint(folder).weights
    for name, value in snapshot_from_checkpoint(original).weights.items():
        np.testing.assert_array_equal(same[name], value)


def test_an_older_masked_lm_checkpoint_builds_as_before(tmp_path, monkeypatch):
    """A checkpoint of the app's own masked LM written before BERT's options (no
    embedding_norm, norm_eps or head_activation in its settings) opens with the same model:
    no embedding LayerNorm, ε 1e-5, the same answers."""
    import torch
    from training_fixtures import events_of

    from workbench.core.config.encoder_tasks import MaskedLmTaskConfig
    from workbench.core.config.models import TransformerEncoderConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.jobs import JobControl
    from workbench.core.snapshot.rebuild import model_from_snapshot
    from workbench.core.tasks import task_class
    from workbench.core.training_loop.trainer import TrainRequest

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    (tmp_path / "lines.txt").write_text("\n".join(["the king is dead", "long live the king",
                                                   "the queen is here"] * 6))
    task = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2)
    training = TrainingConfig(max_steps=4, batch_size=4, eval_every=4, log_every=2,
                              sample_every=4, checkpoint_every=4, warmup_steps=1, threads=1)
    steps = task_class(task.name).examples(task, type("R", (), {"training": training})(),
                                           JobControl())
    try:
        while True:
            next(steps)
    except StopIteration as done:
        data = done.value
    encoder = TransformerEncoderConfig(d_model=16, num_heads=2, num_layers=1, d_ff=32,
                                       context_length=32, dropout=0.0)
    events = events_of(TrainRequest(data, encoder, training, run_name="old", task=task,
                                    gui=False))
    latest = tmp_path / "runs"
    meta_path = next(latest.rglob("latest.json"))
    new = snapshot_from_checkpoint(meta_path)
    meta = json.loads(meta_path.read_text())
    for key in ("embedding_norm", "norm_eps"):
        del meta["model_config"]["encoder"][key]
    del meta["model_config"]["head_activation"]
    meta_path.write_text(json.dumps(meta))
    old = snapshot_from_checkpoint(meta_path)
    assert "encoder.embed_norm.weight" not in old.weights and events
    a, b = model_from_snapshot(new).eval(), model_from_snapshot(old).eval()
    assert b.head.norm.eps == b.encoder.blocks[0].norm1.eps == 1e-5
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        assert torch.equal(a(ids), b(ids))
