"""Fine-tuning a GPT-2 folder as a language model on a corpus (issue 34 item 3): the folder's
sizes, weights and tokenizer replace the form's model and the corpus tokenizer, the loss falls
in 20 steps, and a run stopped at step 10 resumes to the same numbers as one that never
stopped."""

from __future__ import annotations

import numpy as np
import pytest
from training_fixtures import TEXT

from tests.core.finetune_support import assert_resumes_exactly, losses
from tests.core.pretrained_folders import make_gpt2_folder
from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

RECIPE = """name = "finetune"
seed = 3
[corpus]
path = "tiny.txt"
[tokenizer]
kind = "char"
val_fraction = 0.1
test_fraction = 0.0
[model]
arch = "lstm"
[task]
name = "language_model"
start_from = "tiny-gpt2"
[training]
max_steps = 20
batch_size = 4
seq_len = 32
eval_every = 10
eval_batches = 2
log_every = 2
sample_every = 10
sample_length = 8
warmup_steps = 2
lr = 0.003
schedule = "constant"  # the same rate whether the run ends at step 10 or 20
checkpoint_every = 10
threads = 1
"""


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_gpt2_folder(tmp_path / "tiny-gpt2")
    (tmp_path / "tiny.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "finetune.toml").write_text(RECIPE, encoding="utf-8")
    return tmp_path / "finetune.toml"


def test_twenty_steps_lower_the_loss_of_gpt2_with_its_own_tokens(recipe, tmp_path):
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    saved = load_checkpoint(out / "checkpoints" / "latest.json")
    config, tokenizer = saved.meta["model_config"], saved.meta["tokenizer"]
    assert config["arch"] == "transformer" and config["d_model"] == 32  # the folder's, not lstm
    assert config["activation"] == "gelu_tanh" and config["head_bias"] is False
    assert tokenizer["kind"] == "pretrained" and config["vocab_size"] == 320
    train = losses(out, "loss")
    assert np.mean(train[-3:]) < np.mean(train[:3]) - 0.5  # a random GPT-2 learns the text


def test_a_stopped_fine_tuning_run_resumes_exactly(recipe, tmp_path):
    assert_resumes_exactly(recipe, tmp_path)


def test_a_start_from_that_is_no_model_folder_says_so(recipe, tmp_path, capsys):
    recipe.write_text(RECIPE.replace('start_from = "tiny-gpt2"', 'start_from = "nowhere"'))
    assert main([str(recipe), "--out", str(tmp_path / "bad")]) != 0
    assert "which is not a model folder" in capsys.readouterr().err
