"""benchmarks/bench_gpu.py runs end to end on the CPU with a shrunken copy of its recipe: CI and
this machine have no GPU, and a GPU is lent only now and then, so a broken script would first
show on the GPU, where every minute counts."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from benchmarks import bench_gpu

_RECIPE = bench_gpu.recipe  # the shipped recipe, before the test shrinks it


def _small(steps=None):
    loaded = _RECIPE(steps)
    loaded.model = dataclasses.replace(loaded.model, d_model=32, num_heads=2, num_layers=1,
                                       d_ff=64)
    changes = {"batch_size": 2, "eval_batches": 2, "device": "cpu", "bf16": False,
               "threads": 1}
    if steps is None:  # the quality run: 120 steps instead of 5,000
        changes |= {"max_steps": 120, "eval_every": 40, "checkpoint_every": 40,
                    "sample_every": 0}
    loaded.training = dataclasses.replace(loaded.training, **changes)
    return loaded


@pytest.mark.slow
def test_both_parts_run_and_report_on_the_cpu(monkeypatch, capsys):
    monkeypatch.setattr(bench_gpu, "DEVICE", "cpu")
    monkeypatch.setattr(bench_gpu, "recipe", _small)
    bench_gpu.throughput(steps=110, repeats=2)
    bench_gpu.quality()
    out = capsys.readouterr().out
    ratios = [float(r) for r in re.findall(r"ratio (\d+\.\d+)", out)]
    assert len(ratios) == 2 and all(0.2 < r < 5 for r in ratios)
    losses = [float(v) for v in re.findall(r"validation (\d+\.\d+)", out)]
    assert len(losses) == 3 and losses[-1] < losses[0]  # steps 40, 80, 120: it learned
    tested = re.search(r"best checkpoint \(step (\d+)\) on the test split: (\d+\.\d+)", out)
    assert tested, out
    uniform = math.log(bench_gpu.vocab_size())
    assert int(tested[1]) == 120 and 0 < float(tested[2]) < uniform
