"""Batches, schedules and metrics: the pieces the trainer is built from."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from workbench.core.config.training import TrainingConfig
from workbench.core.training.batches import (
    ContiguousBatches,
    RandomBlocks,
    training_batches,
    validation_windows,
)
from workbench.core.training.metrics import bits_per_token, perplexity
from workbench.core.training.schedules import lr_at


def test_contiguous_batches_continue_each_row_for_tbptt():
    ids = np.arange(1000)
    batches = ContiguousBatches(ids, batch_size=4, seq_len=10)
    x0, y0 = batches.batch(0)
    x1, _ = batches.batch(1)
    assert x0.shape == (4, 10)
    assert np.array_equal(y0[:, :-1], x0[:, 1:])  # targets are the inputs shifted by one
    assert np.array_equal(x1[:, 0], x0[:, -1] + 1)  # row b goes on where it stopped
    assert np.array_equal(x0[:, 0], [0, 250, 500, 750])
    assert batches.starts_sequence(0) and not batches.starts_sequence(1)
    assert batches.starts_sequence(batches.windows)  # rows start over: reset the state


def test_random_blocks_depend_only_on_seed_and_step():
    ids = np.arange(5000)
    a, b = RandomBlocks(ids, 8, 16, seed=3), RandomBlocks(ids, 8, 16, seed=3)
    assert np.array_equal(a.batch(5)[0], b.batch(5)[0])
    assert not np.array_equal(a.batch(5)[0], a.batch(6)[0])
    x, y = a.batch(0)
    assert np.array_equal(y - x, np.ones_like(x))  # consecutive ids: targets shifted by one


def test_batching_follows_supports_state_not_architecture():
    ids = np.arange(500)
    assert isinstance(training_batches(ids, 2, 8, stateful=True, seed=0), ContiguousBatches)
    assert isinstance(training_batches(ids, 2, 8, stateful=False, seed=0), RandomBlocks)


def test_validation_windows_are_fixed_and_bounded():
    windows = validation_windows(np.arange(200), batch_size=4, seq_len=10, count=100)
    assert len(windows) == 4  # (200 // 4 - 1) // 10 windows per row
    again = validation_windows(np.arange(200), 4, 10, 100)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(windows, again, strict=True))
    assert len(validation_windows(np.arange(200), 4, 10, count=2)) == 2


def test_a_stateless_models_validation_samples_the_whole_split():
    """A transformer's validation blocks are spread over the split, not the first windows of
    a few rows: its figure then reads like the held-out text (issue 18, item 2)."""
    ids = np.arange(10_000)
    windows = validation_windows(ids, batch_size=4, seq_len=10, count=5, stateful=False)
    assert len(windows) == 5 and all(x.shape == (4, 10) for x, _ in windows)
    inputs = np.concatenate([x for x, _ in windows])
    assert all(np.array_equal(y, x + 1) for x, y in windows)  # contiguous blocks, next tokens
    assert inputs[:, 0].min() == 0 and inputs[:, -1].max() + 1 == len(ids) - 1
    tenths = set((inputs[:, 0] * 10) // len(ids))
    assert tenths == set(range(10))  # every tenth of the split is read
    rows = validation_windows(ids, 4, 10, 5)  # a stateful model's: 5 windows of 4 rows
    assert len(set((np.concatenate([x for x, _ in rows])[:, 0] * 10) // len(ids))) == 4


def test_schedules():
    cosine = TrainingConfig(lr=1.0, schedule="cosine", warmup_steps=10, max_steps=110)
    assert lr_at(cosine, 0) == pytest.approx(0.1)
    assert lr_at(cosine, 9) == pytest.approx(1.0)
    assert lr_at(cosine, 60) == pytest.approx(0.1 + 0.9 * 0.5)  # half-way down
    assert lr_at(cosine, 110) == pytest.approx(0.1)
    assert lr_at(cosine, 9, scale=0.5) == pytest.approx(0.5)
    step = TrainingConfig(lr=1.0, schedule="step", warmup_steps=0, step_size=10, gamma=0.5)
    assert [lr_at(step, s) for s in (0, 9, 10, 25)] == pytest.approx([1, 1, 0.5, 0.25])
    assert lr_at(TrainingConfig(lr=0.3, schedule="constant"), 999) == 0.3


def test_perplexity_and_bits_match_their_definitions():
    probabilities = np.array([0.5, 0.25, 0.125, 0.5])
    mean_nll = float(-np.mean(np.log(probabilities)))
    # perplexity = (Π 1/p)^(1/N), the geometric mean of inverse probabilities
    assert perplexity(mean_nll) == pytest.approx(np.prod(1 / probabilities) ** 0.25)
    assert bits_per_token(mean_nll) == pytest.approx(float(-np.mean(np.log2(probabilities))))
    assert perplexity(math.nan) == math.inf and perplexity(1e4) == math.inf


def test_training_config_problems_are_readable():
    assert TrainingConfig().problems() == []
    problems = TrainingConfig(lr=0, warmup_steps=5000, max_steps=100, optimizer="adam",
                              bf16=True, device="cpu").problems()
    text = " ".join(problems)
    assert "Learning rate must be at least" in text and "Optimizer must be one of" in text
    assert "Warm-up steps (5000)" in text and "bf16 autocast needs a CUDA device" in text


def test_a_gpu_runs_random_state_restores_the_cpus_draws_on_a_cpu():
    """A checkpoint from a GPU keeps the CPU's generator and then the GPU's; opened on a CPU,
    the CPU's part is restored and the GPU's is left (its length must not confuse it)."""
    from workbench.core.training.setup import rng_state, set_rng_state

    cpu = torch.device("cpu")
    kept = rng_state(cpu)
    expected = torch.rand(5)
    from_a_gpu = torch.cat([kept, torch.arange(16, dtype=torch.uint8)])  # a Philox seed, offset
    torch.rand(7)
    set_rng_state(from_a_gpu, cpu)
    assert torch.equal(torch.rand(5), expected)
