"""The trainer job driven with list(...): learning, order of events, stop/pause/resume,
determinism and resume continuity."""

from __future__ import annotations

import threading
import time

import pytest
from training_fixtures import events_of, of_type, tiny_request

from workbench.core.events import (
    CheckpointSaved,
    EvalLogged,
    JobCancelled,
    JobFinished,
    JobStarted,
    SampleGenerated,
    SnapshotReady,
    StepLogged,
)
from workbench.core.jobs import JobControl, drive
from workbench.core.training.runs import read_run
from workbench.core.training_loop.trainer import train_job


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.mark.parametrize("stateful", [True, False])
@pytest.mark.slow
def test_loss_falls_on_tiny_corpus(tmp_path, stateful):
    events = events_of(tiny_request(tmp_path, stateful=stateful, max_steps=60))
    assert isinstance(events[-1], JobFinished), events[-1]
    steps = of_type(events, StepLogged)
    evals = of_type(events, EvalLogged)
    assert steps[-1].loss < 0.7 * steps[0].loss
    assert evals[-1].val_loss < evals[0].val_loss
    assert steps[-1].tokens_seen == 60 * 8 * (24 if stateful else 16)
    samples = of_type(events, SampleGenerated)
    assert samples and all(s.text for s in samples)


@pytest.mark.slow
def test_events_come_in_order(tmp_path):
    events = events_of(tiny_request(tmp_path))
    assert isinstance(events[0], JobStarted)
    assert isinstance(events[-1], JobFinished)
    steps = [e.step for e in of_type(events, StepLogged)]
    assert steps == [5, 10, 15, 20, 25, 30, 35, 40]
    at_eval = [type(e).__name__ for e in events if not isinstance(e, StepLogged)
               and getattr(getattr(e, "snapshot", e), "step", None) == 20]
    assert at_eval[:3] == ["EvalLogged", "SnapshotReady", "CheckpointSaved"]
    assert at_eval[-1] == "CheckpointSaved"  # latest every 20 steps
    snapshot = of_type(events, SnapshotReady)[0].snapshot
    assert snapshot.step == 20 and snapshot.weights
    kinds = {e.kind for e in of_type(events, CheckpointSaved)}
    assert kinds == {"best", "latest"}
    assert events[-1].result.endswith(of_type(events, CheckpointSaved)[-1].path.split("/")[-3])


@pytest.mark.slow
def test_same_seed_same_curve_other_seed_other_curve(tmp_path):
    first = [e.loss for e in of_type(events_of(tiny_request(tmp_path)), StepLogged)]
    again = [e.loss for e in of_type(events_of(tiny_request(tmp_path)), StepLogged)]
    other = [e.loss for e in of_type(events_of(tiny_request(tmp_path, seed=7)), StepLogged)]
    assert first == again
    assert first != other


def test_stop_takes_effect_within_a_step_and_keeps_a_checkpoint(tmp_path):
    control = JobControl()
    seen = []
    for event in drive(train_job(tiny_request(tmp_path, max_steps=400)), control):
        seen.append(event)
        if isinstance(event, StepLogged) and event.step == 10:
            control.stop()
    assert isinstance(seen[-1], JobCancelled)
    assert max(e.step for e in of_type(seen, StepLogged)) == 10
    run = read_run(next(iter((tmp_path / "runs").iterdir())))
    assert run.has_checkpoint


def test_pause_holds_training_until_resume(tmp_path):
    control = JobControl()
    events = []
    worker = threading.Thread(target=lambda: events.extend(
        drive(train_job(tiny_request(tmp_path, max_steps=60)), control)))
    control.pause()
    worker.start()
    time.sleep(0.5)
    assert not of_type(events, StepLogged)  # paused from the start: no step taken
    control.resume()
    deadline = time.monotonic() + 30
    while not of_type(events, StepLogged) and time.monotonic() < deadline:
        time.sleep(0.01)
    control.pause()
    held = _settled_length(events)  # the step in flight ends (slowly on a loaded machine)
    time.sleep(0.5)
    assert len(events) == held
    control.resume()
    worker.join(600)  # the rest of the run: over 60 s on a loaded 2-core machine
    assert not worker.is_alive() and isinstance(events[-1], JobFinished)


def _settled_length(events: list, quiet_s: float = 1.0, limit_s: float = 60.0) -> int:
    """The number of events once none has arrived for `quiet_s`: a fixed sleep let the
    step in flight finish on a quiet machine but not under load (CI saw one more event)."""
    deadline = time.monotonic() + limit_s
    length, since = len(events), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if len(events) != length:
            length, since = len(events), time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            break
    return length


@pytest.mark.slow
def test_resume_continues_the_same_curve(tmp_path):
    full = of_type(events_of(tiny_request(tmp_path, schedule="cosine")), StepLogged)
    control = JobControl()
    stopped_dir = tmp_path / "stopped"
    stopped_dir.mkdir()
    request = tiny_request(tmp_path, schedule="cosine", run_dir=stopped_dir)
    for event in drive(train_job(request), control):
        if isinstance(event, StepLogged) and event.step == 20:
            control.stop()
    resumed_request = tiny_request(tmp_path, schedule="cosine", run_dir=stopped_dir)
    resumed_request.resume = True
    resumed = events_of(resumed_request)
    assert isinstance(resumed[-1], JobFinished)
    after = of_type(resumed, StepLogged)
    assert [e.step for e in after] == [25, 30, 35, 40]
    expected = {e.step: e for e in full}
    for event in after:
        assert event.loss == pytest.approx(expected[event.step].loss, rel=1e-5)
        assert event.lr == pytest.approx(expected[event.step].lr)
        assert event.tokens_seen == expected[event.step].tokens_seen
    run = read_run(stopped_dir)
    logged = [e.step for e in run.events if isinstance(e, StepLogged)]
    assert logged == [5, 10, 15, 20, 25, 30, 35, 40]  # joined without a gap or a repeat
