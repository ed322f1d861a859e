"""Memory is budgeted before allocation for activations too (activation_budget.py): a batch ×
sequence that does not fit is refused with the estimate and the largest batch that fits."""

from __future__ import annotations

import pytest

from tests.core.training_fixtures import write_tiny_recipe
from workbench.app.train_cli import main
from workbench.core.config.models import TransformerConfig
from workbench.core.jobs import UserFacingError
from workbench.core.training import activation_budget as act
from workbench.core.training import model_budget

GB = 2**30


def test_the_issue_case_is_refused_with_the_estimate_and_a_batch_that_fits(monkeypatch):
    """d_model 64, batch 4096 × seq 8192 passed the parameter-only check, then died in the
    allocator; refused now, naming a batch that fits in the 3.1 GB free."""
    monkeypatch.setattr(model_budget, "available_memory_bytes", lambda: int(3.1 * GB))
    config = TransformerConfig(vocab_size=65, d_model=64, num_heads=4, num_layers=2, d_ff=256,
                               context_length=8192)
    shapes = {"w": (100_000,)}
    with pytest.raises(UserFacingError) as caught:
        model_budget.check_training_memory(shapes, config, 4096, 8192, "Training this model")
    message = str(caught.value)
    assert "batch 4096 × sequence 8192 needs about" in message and "3.1 GB of memory" in message
    assert "even batch 1 does not fit; sequences of" in message  # seq² attention dominates
    model_budget.check_training_memory(shapes, config, 1, 1024, "Training this model")


def test_an_lstm_estimate_counts_its_gates_per_step():
    lstm = act.Dims(8192, 1, 65, per_unit=act.GATE_VALUES["lstm"], embedding=64)
    gru = act.Dims(8192, 1, 65, per_unit=act.GATE_VALUES["gru"], embedding=64)
    assert act.activation_bytes(lstm, 64, 256) > act.activation_bytes(gru, 64, 256)
    assert act.activation_bytes(lstm, 128, 256) == pytest.approx(
        2 * act.activation_bytes(lstm, 64, 256))
    assert act.largest_batch(lstm, 256, act.activation_bytes(lstm, 100, 256)) == 64


def test_a_recipe_whose_activations_do_not_fit_is_refused_before_training(
        tmp_path, monkeypatch, capsys):
    recipe = write_tiny_recipe(tmp_path, max_steps=3)  # more steps than its 2 of warm-up
    text = recipe.read_text().replace(
        'arch = "gru"\nhidden_size = 16\nembedding_size = 16',
        'arch = "transformer"\nd_model = 64\nnum_heads = 4\nnum_layers = 2\nd_ff = 256\n'
        'context_length = 256').replace("seq_len = 24", "seq_len = 256")
    recipe.write_text(text)
    # the model itself (~0.1M parameters) fits; one step's activations (~90 MB) do not
    monkeypatch.setattr(model_budget, "available_memory_bytes", lambda: 70 * 2**20)
    assert main([str(recipe), "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "batch 8 × sequence 256 needs about" in err and "batch 4 fits" in err
    assert "Traceback" not in err
    assert not (tmp_path / "run" / "checkpoints").exists()
