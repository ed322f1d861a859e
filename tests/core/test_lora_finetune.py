"""LoRA fine-tuning of a GPT-2 folder (issue 34 item 3, Hu et al. 2021, through peft): only the
factors A and B of the attention projections train, the base weights stay as the folder has
them, 20 steps lower the loss, a stopped run resumes exactly, and what every reader opens
(the snapshot, the checkpoint's model part, the export) is the merged W + (α/r) B A, equal to
the peft model's logits."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_pretrained_finetune import RECIPE as GPT2_RECIPE
from training_fixtures import TEXT

from tests.core.finetune_support import losses
from tests.core.pretrained_folders import make_gpt2_folder
from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

pytest.importorskip("peft")

# the GPT-2 fine-tuning recipe with LoRA on (a faster rate: only the factors learn)
RECIPE = (GPT2_RECIPE.replace('name = "finetune"', 'name = "lora"')
          .replace("lr = 0.003", "lr = 0.01") + "lora_rank = 4\nlora_alpha = 8.0\n")


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_gpt2_folder(tmp_path / "tiny-gpt2")
    (tmp_path / "tiny.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "lora.toml").write_text(RECIPE, encoding="utf-8")
    return tmp_path / "lora.toml"


def test_lora_lowers_the_loss_with_the_base_weights_unchanged(recipe, tmp_path):
    from workbench.core.pretrained import open_model

    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    train = losses(out, "loss")
    assert np.mean(train[-3:]) < np.mean(train[:3]) - 0.1, train
    saved = load_checkpoint(out / "checkpoints" / "latest.json")
    _, folder = open_model(tmp_path / "tiny-gpt2")
    bases = {k: v for k, v in saved.lora.items() if ".base_layer." in k}
    assert bases and any(".lora_B." in k for k in saved.lora)
    for name, value in bases.items():  # W itself never moved
        assert np.array_equal(value.numpy(), folder[name.replace(".base_layer.", ".")]), name
    for name, value in saved.model.items():  # nor did anything outside the projections
        if not name.endswith((".qkv.weight", ".proj.weight")):
            assert np.array_equal(value.numpy(), folder[name]), name
    # the merged projections did move: W + (α/r) B A with B trained away from 0
    assert not np.array_equal(saved.model["blocks.0.qkv.weight"].numpy(),
                              folder["blocks.0.qkv.weight"])
    # exported as a GPT-2 folder with LoRA merged: transformers reads the merged W_Q W_K W_V
    from tests.core.pretrained_folders import reference_gpt2
    from workbench.app.main import main as workbench

    assert workbench(["export", str(out), "--hf", str(tmp_path / "hf")]) == 0
    exported = reference_gpt2(tmp_path / "hf").transformer.h[0].attn.c_attn.weight
    assert torch.allclose(exported.detach().T, saved.model["blocks.0.qkv.weight"], atol=1e-6)


def test_a_stopped_lora_run_resumes_exactly(recipe, tmp_path):
    whole, halves = tmp_path / "whole", tmp_path / "halves"
    assert main([str(recipe), "--out", str(whole)]) == 0
    assert main([str(recipe), "--out", str(halves), "--max-steps", "10"]) == 0
    assert main(["--resume", str(halves), "--max-steps", "20"]) == 0
    assert losses(whole, "val_loss") == losses(halves, "val_loss")
    a = load_checkpoint(whole / "checkpoints" / "latest.json")
    b = load_checkpoint(halves / "checkpoints" / "latest.json")
    for part in ("model", "lora"):
        one, two = getattr(a, part), getattr(b, part)
        assert set(one) == set(two)
        assert all(torch.equal(one[k], two[k]) for k in one), part


def test_the_merged_snapshot_equals_the_peft_model(tmp_path):
    from workbench.core.config.training import TrainingConfig
    from workbench.core.models import build_model
    from workbench.core.pretrained import open_model
    from workbench.core.snapshot.rebuild import model_from_snapshot, snapshot_of
    from workbench.core.training import lora

    config, weights = open_model(make_gpt2_folder(tmp_path / "tiny-gpt2"))
    model = build_model(config)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    torch.manual_seed(0)
    model = lora.wrap(model, TrainingConfig(lora_rank=4, lora_alpha=8.0))
    trained = [n for n, p in model.named_parameters() if p.requires_grad]
    assert trained and all(".lora_" in n for n in trained)
    with torch.no_grad():  # B starts at 0: give it values, as training would
        for name, parameter in model.named_parameters():
            if ".lora_B." in name:
                parameter.normal_(0, 0.1)
    model.eval()
    tokens = torch.randint(0, config.vocab_size, (2, 16))
    with torch.no_grad():
        expected = model(tokens)[0]
    merged = lora.merged_state(model)
    assert set(merged) == set(weights)  # the plain names, every one
    snapshot = snapshot_of(model, {})
    plain = model_from_snapshot(type(snapshot)(**{**snapshot.__dict__, "weights": {
        k: v.numpy() for k, v in merged.items()}}))
    with torch.no_grad():
        got = plain(tokens)[0]
    assert torch.allclose(got, expected, atol=1e-5), (got - expected).abs().max()


def test_lora_is_refused_for_a_new_model_and_an_lstm(tmp_path):
    from workbench.core.config.models import LstmConfig
    from workbench.core.config.tasks import LanguageModelTaskConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.jobs import UserFacingError
    from workbench.core.models import build_model
    from workbench.core.training import lora

    training = TrainingConfig(lora_rank=4)
    model = build_model(LstmConfig(vocab_size=20, embedding_size=8, hidden_size=8))
    with pytest.raises(UserFacingError, match="trains a new one"):
        lora.wrap_for_run(model, training, LanguageModelTaskConfig())
    with pytest.raises(UserFacingError, match="this model has none"):
        lora.wrap(model, training)


def test_an_encoder_tasks_fresh_head_trains_whole_beside_the_factors():
    from workbench.core.config.models import TransformerEncoderConfig, config_to_dict
    from workbench.core.config.task_models import ClassifierModelConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.models import build_model
    from workbench.core.training import lora

    encoder = TransformerEncoderConfig(vocab_size=30, d_model=16, num_heads=2, num_layers=1,
                                       d_ff=24, context_length=16)
    model = lora.wrap(build_model(ClassifierModelConfig(encoder=config_to_dict(encoder))),
                      TrainingConfig(lora_rank=2))
    trained = {n for n, p in model.named_parameters() if p.requires_grad}
    assert {"head.weight", "head.bias"} <= trained
    assert all(".lora_" in n for n in trained if n.startswith("encoder."))
