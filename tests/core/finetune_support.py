"""What the fine-tuning tests share (GPT-2, BERT and Llama folders, LoRA): a run's logged
values, and the check that a run stopped half way and resumed ends exactly where one run
straight through ends."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint


def losses(run: Path, key: str) -> list[float]:
    """The values of `key` in the run's metrics.jsonl, in order (lines without it skipped)."""
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    return [x[key] for x in rows if x.get(key) is not None]


def assert_resumes_exactly(recipe: Path, tmp_path: Path, steps: int = 20) -> None:
    """The recipe's run straight through, and stopped at half its steps then resumed: the
    same validation losses and bit-identical weights."""
    whole, halves = tmp_path / "whole", tmp_path / "halves"
    assert main([str(recipe), "--out", str(whole)]) == 0
    assert main([str(recipe), "--out", str(halves), "--max-steps", str(steps // 2)]) == 0
    assert main(["--resume", str(halves), "--max-steps", str(steps)]) == 0
    assert losses(whole, "val_loss") == losses(halves, "val_loss")
    a = load_checkpoint(whole / "checkpoints" / "latest.json").model
    b = load_checkpoint(halves / "checkpoints" / "latest.json").model
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
