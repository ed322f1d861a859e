"""Stop and pause act within one training step, whatever the logging interval: the trainer
looks at the job's control before every step, not only when it yields an event."""

from __future__ import annotations

import threading
import time

import pytest
from training_fixtures import TinyGruLm, build_tiny, events_of, of_type, snapshot_tiny, tiny_request

from workbench.core.events import JobCancelled, StepLogged
from workbench.core.jobs import JobControl, drive
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training_loop.trainer import train_job


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def hooks_acting_at(call: int, act, models: list | None = None):
    """Model hooks whose model calls `act()` during its `call`-th training forward pass, i.e.
    in the middle of a step, far from any event the trainer yields."""
    def build(config):
        model = build_tiny(config)
        forward = TinyGruLm.forward

        def counting(self, tokens, state=None):
            if self.training and self.calls + 1 == call:
                act()
            return forward(self, tokens, state)  # counts the call
        model.forward = counting.__get__(model)
        if models is not None:
            models.append(model)
        return model
    return ModelHooks(build, snapshot_tiny)


def test_stop_acts_within_one_step_between_log_lines(tmp_path):
    control = JobControl()
    request = tiny_request(tmp_path, max_steps=200, log_every=50, eval_every=1000,
                           sample_every=0, checkpoint_every=1000)
    request.hooks = hooks_acting_at(7, control.stop)  # asked during step 7 of 200
    events = events_of(request, control)
    assert isinstance(events[-1], JobCancelled)
    assert of_type(events, StepLogged) == []  # the first log line (step 50) never came
    run_dir = [e for e in events if hasattr(e, "run_dir")][0].run_dir
    saved = load_checkpoint(f"{run_dir}/checkpoints/latest.json")
    assert saved.step == 7  # step 7 finished, step 8 never started


@pytest.mark.slow
def test_pause_holds_within_one_step_and_resume_goes_on(tmp_path):
    control = JobControl()
    request = tiny_request(tmp_path, max_steps=60, log_every=50, eval_every=1000,
                           sample_every=0, checkpoint_every=1000)
    models: list = []
    request.hooks = hooks_acting_at(4, control.pause, models)
    spec = train_job(request)
    events: list = []

    def run():
        for event in drive(spec, control):
            events.append(event)
    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while not control.paused and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # a trainer that went on would run many steps in this time
    # models[0] is the trainer's shape-only build on the meta device (its memory check)
    assert models[-1].calls == 4  # step 4 finished, step 5 waits: however loaded the machine
    control.resume()
    thread.join(120)
    assert not thread.is_alive()
    logged = of_type(events, StepLogged)
    assert [e.step for e in logged] == [50, 60]
