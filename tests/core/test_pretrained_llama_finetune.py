"""Fine-tuning a Llama folder as a language model (issue 34 item 3): the folder's sizes
(RMSNorm, rotary positions, SwiGLU, grouped-query attention, no biases), weights and
SentencePiece tokenizer replace the form's model and the corpus tokenizer, the loss falls in 20
steps, and a run stopped at step 10 resumes to the same numbers as one that never stopped."""

from __future__ import annotations

import numpy as np
import pytest
from test_pretrained_finetune import RECIPE
from training_fixtures import TEXT

from tests.core.finetune_support import assert_resumes_exactly, losses
from tests.core.pretrained_folders import make_llama_folder
from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

LLAMA_RECIPE = RECIPE.replace('start_from = "tiny-gpt2"', 'start_from = "tiny-llama"')


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_llama_folder(tmp_path / "tiny-llama")
    (tmp_path / "tiny.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "finetune.toml").write_text(LLAMA_RECIPE, encoding="utf-8")
    return tmp_path / "finetune.toml"


@pytest.mark.slow
def test_twenty_steps_lower_the_loss_of_a_llama_with_its_own_tokens(recipe, tmp_path):
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    saved = load_checkpoint(out / "checkpoints" / "latest.json")
    config, tokenizer = saved.meta["model_config"], saved.meta["tokenizer"]
    assert config["arch"] == "transformer" and config["positional"] == "rope"
    assert config["norm"] == "rmsnorm" and config["kv_heads"] == 2 and config["gated_ffn"]
    assert tokenizer["kind"] == "pretrained" and tokenizer["bos_id"] == 1
    assert "blocks.0.ff_gate.weight" in saved.model and "blocks.0.qkv.bias" not in saved.model
    train = losses(out, "loss")
    assert np.mean(train[-3:]) < np.mean(train[:3]) - 0.5


@pytest.mark.slow
def test_a_stopped_llama_fine_tuning_run_resumes_exactly(recipe, tmp_path):
    assert_resumes_exactly(recipe, tmp_path)
