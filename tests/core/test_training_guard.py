"""The divergence guard: an injected NaN is rolled back with a halved learning rate, and
training gives up with a clear message after three tries."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from training_fixtures import build_tiny, events_of, of_type, tiny_request

from workbench.core.events import DivergenceHandled, JobFailed, JobFinished, StepLogged
from workbench.core.training.guard import DivergenceGuard


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def _with_nan(request, calls):
    """Make the model's training forward return NaN logits on the given training calls
    (counted from 1; validation and sampling calls do not count)."""

    def build(config):
        model = build_tiny(config)
        original = model.forward
        counter = [0]

        def forward(tokens, state=None):
            logits, state = original(tokens, state)
            counter[0] += int(model.training)
            if model.training and counter[0] in calls:
                logits = logits * float("nan")
            return logits, state

        model.forward = forward
        return model

    request.hooks.build = build
    return request


def test_one_nan_rolls_back_halves_lr_and_training_goes_on(tmp_path):
    request = _with_nan(tiny_request(tmp_path, schedule="constant", max_steps=40), {33})
    events = events_of(request)
    assert isinstance(events[-1], JobFinished)
    (handled,) = of_type(events, DivergenceHandled)
    assert handled.step == 32 and handled.resumed_at == 25  # last kept copy
    assert "nan" in handled.reason.lower()
    assert handled.new_lr == pytest.approx(0.5e-2)
    steps = of_type(events, StepLogged)
    assert steps[-1].step == 40 and steps[-1].lr == pytest.approx(0.5e-2)
    logged = [e.step for e in steps]
    assert logged == [5, 10, 15, 20, 25, 30, 30, 35, 40]  # 26..32 trained again


def test_gives_up_after_three_tries_with_a_clear_message(tmp_path):
    request = _with_nan(tiny_request(tmp_path, schedule="constant"), set(range(12, 1000)))
    events = events_of(request)
    assert len(of_type(events, DivergenceHandled)) == 3
    assert [e.new_lr for e in of_type(events, DivergenceHandled)] == pytest.approx(
        [5e-3, 2.5e-3, 1.25e-3])
    failed = events[-1]
    assert isinstance(failed, JobFailed)
    assert "diverged" in failed.message and "Lower the learning rate" in failed.message


def test_gradient_spike_counts_as_divergence():
    guard = DivergenceGuard(spike_factor=10.0)
    guard.norms_seen, guard.norm_average = 50, 1.0
    assert guard.problem(2.0, 5.0) == ""
    assert "gradient norm" in guard.problem(2.0, 15.0)
    assert "inf" in guard.problem(float("inf"), 1.0)
    assert DivergenceGuard(spike_factor=0.0).problem(1.0, 1e9) == ""


def test_a_spike_below_the_clipping_threshold_is_no_divergence():
    """Near convergence the average norm is tiny: a harder batch is 40x it yet harmless."""
    guard = DivergenceGuard(spike_factor=20.0, floor=1.0)
    guard.norms_seen, guard.norm_average = 50, 0.004
    assert guard.problem(0.002, 0.16) == ""
    unfloored = DivergenceGuard(spike_factor=20.0)
    unfloored.norms_seen, unfloored.norm_average = 50, 0.004
    assert "gradient norm" in unfloored.problem(0.002, 0.16)
    assert "gradient norm" in guard.problem(0.002, 1.5)
def _steady_blow_up(request, from_call: int, factor: float = 6.0):
    """Scale the logits of every training forward from `from_call` on: the loss stays finite
    and the gradients steady, but it sits far above a uniform guess (as at too high a rate)."""

    def build(config):
        model = build_tiny(config)
        original = model.forward
        counter = [0]

        def forward(tokens, state=None):
            logits, state = original(tokens, state)
            counter[0] += int(model.training)
            if model.training and counter[0] >= from_call:
                logits = logits * 0 + factor * torch.randn_like(logits)
            return logits, state

        model.forward = forward
        return model

    request.hooks.build = build
    return request


@pytest.mark.slow
def test_a_steady_blow_up_above_the_uniform_loss_is_divergence_not_done(tmp_path):
    request = _steady_blow_up(tiny_request(tmp_path, max_steps=80, spike_factor=0.0), 30)
    events = events_of(request)
    handled = of_type(events, DivergenceHandled)
    assert handled and "above" in handled[0].reason and "uniform guess" in handled[0].reason
    assert isinstance(events[-1], JobFailed)  # it never recovers: a message, not "done"
    assert "diverged" in events[-1].message
    uniform = math.log(request.data.vocab_size)
    best = [e for e in events if type(e).__name__ == "CheckpointSaved" and e.kind == "best"]
    for saved in best:
        meta = json.loads(Path(saved.path).read_text())
        assert meta["metrics"]["val_loss"] < uniform


def test_a_validation_worse_than_uniform_is_never_best(tmp_path):
    request = _steady_blow_up(tiny_request(tmp_path, max_steps=20, eval_every=10,
                                           spike_factor=0.0), 1, factor=0.0)
    build = request.hooks.build  # trains at exactly the uniform loss: no divergence

    def build_worse(config):
        model = build(config)
        with torch.no_grad():
            model.out.bias.copy_(torch.arange(model.out.bias.numel()) * 3.0)  # confidently wrong
        return model

    request.hooks.build = build_worse
    events = events_of(request)
    assert not [e for e in events if type(e).__name__ == "CheckpointSaved" and e.kind == "best"]


def test_rising_validation_with_rising_training_loss_rolls_back_to_the_best():
    guard = DivergenceGuard(0.0, uniform_loss=4.0)
    for val, train in ((2.0, 2.1), (1.8, 1.9), (1.9, 2.0), (2.0, 2.1)):
        guard.interval = [train]
        assert guard.validation_problem(val) == ""
    guard.interval = [2.3]
    assert "rose 3 times in a row" in guard.validation_problem(2.2)
    overfitting = DivergenceGuard(0.0, uniform_loss=4.0)
    for val, train in ((1.8, 1.9), (1.9, 1.8), (2.0, 1.7), (2.1, 1.6), (2.2, 1.5)):
        overfitting.interval = [train]
        assert overfitting.validation_problem(val) == ""  # training still improves


def test_a_classifiers_hard_batch_is_no_spike_but_a_blow_up_is():
    """A classifier near a fit: nine batches of norm 0.03, then one holding a misclassified
    sentence at 5, over and over (seen in the sentiment-transformer run). Its next hard batch
    (10) is no divergence; a norm 60 times a steady one still is."""
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    guard = DivergenceGuard(spike_factor=20.0, floor=1.0)
    for step, norm in enumerate(([5.0] + [0.03] * 9) * 30, start=1):
        guard.record_good(step, norm, model, optimizer, None)
    assert guard.problem(0.12, 10.0) == ""
    steady = DivergenceGuard(spike_factor=20.0, floor=1.0)
    for step in range(1, 300):
        steady.record_good(step, 1.0, model, optimizer, None)
    assert "gradient norm" in steady.problem(3.0, 60.0)


def test_a_rollback_restores_what_trains_and_copies_no_frozen_weight():
    """Frozen weights (a LoRA run's whole pretrained model, a frozen embedding) never change,
    so the guard's copies leave them out: two copies of a pretrained model tripled its memory.
    A rollback still restores every weight that trains."""
    model = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 3))
    model[0].weight.requires_grad_(False)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.1)
    guard = DivergenceGuard(spike_factor=10.0)
    guard.keep(5, model, optimizer, None)
    assert set(guard.good.model) == {"1.weight", "1.bias"}  # the embedding is not copied
    kept = model[1].weight.detach().clone()
    frozen = model[0].weight.detach().clone()
    model(torch.tensor([[1, 2]])).sum().backward()
    optimizer.step()
    assert not torch.equal(model[1].weight, kept)
    guard.roll_back(6, "a test", model, optimizer)
    assert torch.equal(model[1].weight, kept) and torch.equal(model[0].weight, frozen)
