"""A time budget (issue 29, item 3): `[training] minutes` fits the cosine decay to the training
time spent on this machine, ends the run when it is spent, leaves pauses out and carries over a
resume. The trainer's clock is a fake here, moved one second by every training forward pass,
so the tests see exact times on a loaded machine."""

from __future__ import annotations

import dataclasses

import pytest
from training_fixtures import TinyGruLm, build_tiny, of_type, snapshot_tiny, tiny_request

from workbench.core.config.training import TrainingConfig
from workbench.core.events import CheckpointSaved, JobFinished, Progress, StepLogged
from workbench.core.jobs import JobCancelledError
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.schedules import COSINE_FLOOR, lr_at
from workbench.core.training_loop.trainer import Trainer


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ticking_hooks(clock: FakeClock) -> ModelHooks:
    """A tiny model whose every training forward pass takes one second of `clock`."""
    def build(config):
        model = build_tiny(config)

        def forward(self, tokens, state=None):
            if self.training:
                clock.now += 1.0
            return TinyGruLm.forward(self, tokens, state)
        model.forward = forward.__get__(model)
        return model
    return ModelHooks(build, snapshot_tiny)


def timed_trainer(tmp_path, clock, minutes=0.5, **changes) -> Trainer:
    request = tiny_request(tmp_path, max_steps=10_000, minutes=minutes, eval_every=1000,
                           sample_every=0, checkpoint_every=1000, log_every=1, **changes)
    request.hooks = ticking_hooks(clock)
    trainer = Trainer(request)
    trainer.clock = clock
    return trainer


def test_cosine_decay_follows_the_elapsed_time_not_the_steps():
    config = TrainingConfig(lr=1.0, schedule="cosine", warmup_steps=10, max_steps=50,
                            minutes=10)
    assert lr_at(config, 4, elapsed_s=500) == pytest.approx(0.5)  # warm-up: by steps
    assert lr_at(config, 1000, elapsed_s=0) == pytest.approx(1.0)
    assert lr_at(config, 20, elapsed_s=300) == pytest.approx(COSINE_FLOOR + (1 - COSINE_FLOOR)
                                                             * 0.5)
    assert lr_at(config, 20, elapsed_s=600) == pytest.approx(COSINE_FLOOR)
    assert lr_at(config, 20, elapsed_s=9000) == pytest.approx(COSINE_FLOOR)
    # the same step at two times: two rates; without a budget the step alone decides
    assert lr_at(config, 30, elapsed_s=60) > lr_at(config, 30, elapsed_s=540)
    steps = dataclasses.replace(config, minutes=0)
    assert lr_at(steps, 30, elapsed_s=60) == lr_at(steps, 30, elapsed_s=540)


def test_the_run_ends_when_the_budget_is_spent_and_its_rates_follow_the_clock(tmp_path):
    clock = FakeClock()
    trainer = timed_trainer(tmp_path, clock, minutes=0.5)  # 30 s: 30 steps of 1 s
    events = list(trainer.run())
    logged = of_type(events, StepLogged)
    assert logged[-1].step == 30 and isinstance(events[-1], JobFinished)
    assert load_checkpoint(trainer.checkpoint_dir / "latest.json").step == 30
    for event in logged[trainer.config.warmup_steps:]:
        # step s ran after s-1 seconds of training
        assert event.lr == pytest.approx(lr_at(trainer.config, event.step - 1,
                                               elapsed_s=event.step - 1))
    # the status bar follows the clock (seconds of the budget), then says the run finishes
    timed = [e for e in of_type(events, Progress) if e.message.startswith("Step")]
    assert timed[-1].total == pytest.approx(30.0) and timed[-1].done == pytest.approx(29.0)
    assert "0:29 of 0:30" in timed[-1].message
    assert of_type(events, Progress)[-1].message.startswith("Finishing")


def test_a_pause_does_not_use_the_budget(tmp_path):
    clock = FakeClock()
    trainer = timed_trainer(tmp_path, clock, minutes=0.5)

    class PausedOnce:  # paused before one step, for an hour of the clock
        stop_requested = False

        def __init__(self) -> None:
            self.pauses = 1

        @property
        def paused(self) -> bool:
            return self.pauses > 0 and trainer.step == 12

        def wait_if_paused(self) -> None:
            self.pauses -= 1
            clock.now += 3600.0
    trainer.control = PausedOnce()
    events = list(trainer.run())
    assert trainer.control.pauses == 0
    assert of_type(events, StepLogged)[-1].step == 30
    assert of_type(events, StepLogged)[-1].elapsed_s == pytest.approx(30.0)


def test_a_resumed_run_continues_its_budget(tmp_path):
    clock = FakeClock()
    trainer = timed_trainer(tmp_path, clock, minutes=0.5)

    class StopAfter:  # the user presses Stop after step 12
        paused = False

        @property
        def stop_requested(self) -> bool:
            return trainer.step >= 12

    trainer.control = StopAfter()
    with pytest.raises(JobCancelledError):
        list(trainer.run())
    saved = load_checkpoint(trainer.checkpoint_dir / "latest.json")
    assert saved.step == 12 and saved.meta["elapsed_s"] == pytest.approx(12.0)
    later = FakeClock()
    later.now = 50_000.0  # another day: the clock's origin does not matter
    request = dataclasses.replace(trainer.request, run_dir=trainer.run_dir, resume=True,
                                  hooks=ticking_hooks(later))
    resumed = Trainer(request)
    resumed.clock = later
    events = list(resumed.run())
    logged = of_type(events, StepLogged)
    assert (logged[0].step, logged[-1].step) == (13, 30)  # 18 more seconds, 30 in all
    assert logged[-1].elapsed_s == pytest.approx(30.0)
    assert [e.step for e in of_type(events, CheckpointSaved) if e.kind == "latest"] == [30]
