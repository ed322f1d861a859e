"""`workbench generate CHECKPOINT`: a trained run writes text without the window (the
installer check uses it on the bundle's shipped models)."""

from __future__ import annotations

import pytest
from training_fixtures import write_tiny_recipe

from workbench.app.generate_cli import main as generate
from workbench.app.train_cli import main as train


@pytest.fixture
def run_dir(monkeypatch, tmp_path, capsys):
    """A real 16-unit GRU trained 10 steps (the model the checkpoint's config names)."""
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    out = tmp_path / "run"
    assert train([str(write_tiny_recipe(tmp_path)), "--out", str(out), "--max-steps", "10"]) == 0
    capsys.readouterr()
    return out


def test_generates_from_a_run_folder_and_a_checkpoint_file_alike(run_dir, capsys):
    assert generate([str(run_dir), "--prompt", "ab", "--tokens", "30", "--seed", "3"]) == 0
    from_run = capsys.readouterr().out
    assert from_run.startswith("ab") and len(from_run.rstrip("\n")) > 2
    latest = run_dir / "checkpoints" / "latest.json"
    assert generate([str(latest), "--prompt", "ab", "--tokens", "30", "--seed", "3"]) == 0
    assert capsys.readouterr().out == from_run  # same seed, same checkpoint: same text


@pytest.mark.slow
def test_bad_input_is_named(run_dir, tmp_path, capsys):
    assert generate([str(tmp_path / "nothing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert generate([str(run_dir), "--tokens", "0"]) == 2
    assert "Generation settings" in capsys.readouterr().err
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{not json")
    assert generate([str(damaged)]) == 2
    assert "damaged" in capsys.readouterr().err.lower()
