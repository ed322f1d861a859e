"""Following a run folder another process writes, in the Training panel: curves and samples
grow with the files, a new checkpoint becomes the snapshot, a rewrite is read again, and
stopping the follow leaves the run as it was."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from training_fixtures import (  # noqa: E402
    events_of,
    register_tiny_architecture,
    tiny_request,
)

from workbench.app.training_backend import TrainingBackend  # noqa: E402
from workbench.core.events import SampleGenerated, StepLogged  # noqa: E402
from workbench.core.training import runs  # noqa: E402
from workbench.qt.controller import WorkbenchController  # noqa: E402
from workbench.qt.gallery.fake_backend import FakeBackend  # noqa: E402
from workbench.qt.panels.training import TrainingPanel  # noqa: E402


class FastFollow(TrainingBackend):
    """The real facade, with a short poll so the tests do not wait a second per look."""

    def follow_job(self, run_dir, wake=None, poll_s=None):
        return super().follow_job(run_dir, wake, poll_s=0.05)

    def list_runs(self):
        return []


@pytest.fixture
def panel(qtbot):
    controller = WorkbenchController(FakeBackend(training=FastFollow()))
    widget = TrainingPanel(controller)
    qtbot.addWidget(widget)
    widget.resize(1300, 520)
    yield widget
    controller.shutdown()


def write(folder: Path, name: str, text: str) -> None:
    with open(folder / name, "a", encoding="utf-8") as out:
        out.write(text)


def step_line(step: int, loss: float) -> str:
    return runs.event_to_json(StepLogged(step, loss, 1e-3, 0.4, False, step * 64, 900.0,
                                         step / 10)) + "\n"


WAIT_MS = 30_000  # every wait is on a condition; the limit only ends a broken test (busy machine)


def steps_of(panel, key) -> list[int]:
    series = panel.series.get(key)
    return [int(s) for s in series.train["step"]] if series is not None else []


def test_curves_and_samples_grow_as_the_files_grow(qtbot, panel, tmp_path):
    run = tmp_path / "server-run"
    run.mkdir()
    key = str(run)
    with qtbot.waitSignal(panel.controller.following_changed, timeout=WAIT_MS):
        assert panel.controller.follow_run(key)
    assert panel.follow_bar.isVisibleTo(panel)
    assert "waiting for the run" in panel.follow_bar.label.text()
    write(run, "metrics.jsonl", step_line(10, 3.0) + step_line(20, 2.5)[:30])  # half a line
    qtbot.waitUntil(lambda: steps_of(panel, key) == [10], timeout=WAIT_MS)
    write(run, "metrics.jsonl", step_line(20, 2.5)[30:] + step_line(30, 2.0))
    write(run, "samples.jsonl", '{"step": 30, "text": "O Romeo"}\n')
    qtbot.waitUntil(lambda: steps_of(panel, key) == [10, 20, 30], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "O Romeo" in panel.samples.toPlainText(), timeout=WAIT_MS)

    def drawn():
        x, _ = panel.curves._items.get(key, {}).get(("loss", "smooth")).getData()
        return x is not None and list(x) == [10, 20, 30]

    # the curves redraw on a timer and the status line on the next event or tick: wait for
    # each, as a loaded machine may deliver them a few seconds after the series grew
    qtbot.waitUntil(lambda: key in panel.curves._items and drawn(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "step 30" in panel.follow_bar.label.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.run_list.item_for(key) is not None
                    and panel.run_list.item_for(key).font().italic(), timeout=WAIT_MS)


@pytest.fixture
def tiny_architecture():
    unregister = register_tiny_architecture()  # the loader checks a checkpoint's model config
    yield
    unregister()


def test_a_new_checkpoint_becomes_the_snapshot(qtbot, panel, tmp_path, tiny_architecture):
    run = tmp_path / "run"
    run.mkdir()
    events_of(tiny_request(tmp_path, run_dir=run, max_steps=20, checkpoint_every=10))
    snapshots = []
    panel.controller.snapshot_changed.connect(snapshots.append)
    panel.controller.follow_run(str(run))
    qtbot.waitUntil(lambda: bool(snapshots), timeout=30_000)
    assert snapshots[-1].step == 20 and "tiny" in snapshots[-1].model_config["arch"]
    qtbot.waitUntil(lambda: "latest checkpoint (step 20)" in panel.follow_bar.label.text(),
                    timeout=5000)
    assert "(finished)" in panel.follow_bar.label.text()
    assert steps_of(panel, str(run)) == [5, 10, 15, 20]


def test_a_rewritten_run_is_read_again(qtbot, panel, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    write(run, "metrics.jsonl", "".join(step_line(s, 3.0) for s in (10, 20, 30)))
    panel.controller.follow_run(str(run))
    qtbot.waitUntil(lambda: steps_of(panel, str(run)) == [10, 20, 30], timeout=10_000)
    runs.truncate_after(run, 10)  # what a resume from step 10 does
    write(run, "metrics.jsonl", step_line(20, 1.0) + step_line(30, 1.0) + step_line(40, 1.0))
    qtbot.waitUntil(lambda: steps_of(panel, str(run)) == [10, 20, 30, 40], timeout=10_000)
    assert list(panel.series[str(run)].train["loss"]) == [3.0, 1.0, 1.0, 1.0]


def test_stopping_the_follow_leaves_the_run_untouched(qtbot, panel, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    write(run, "metrics.jsonl", step_line(10, 3.0))
    runs.RunLog(run).write(SampleGenerated(10, "hi"))
    before = {p.name: (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
              for p in run.iterdir()}
    panel.controller.follow_run(str(run))
    qtbot.waitUntil(lambda: steps_of(panel, str(run)) == [10], timeout=10_000)
    with qtbot.waitSignal(panel.controller.following_changed, timeout=10_000,
                          check_params_cb=lambda _key, on: not on):
        panel.follow_bar.stop.click()
    assert not panel.controller.followers and not panel.follow_bar.isVisibleTo(panel)
    assert not panel.run_list.item_for(str(run)).font().italic()
    assert steps_of(panel, str(run)) == [10]  # the curves stay
    after = {p.name: (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
             for p in run.iterdir()}
    assert after == before
    write(run, "metrics.jsonl", step_line(20, 2.0))  # the run goes on; the view does not
    qtbot.wait(300)
    assert steps_of(panel, str(run)) == [10]


def test_following_what_is_not_a_run_says_so(qtbot, panel, tmp_path):
    (tmp_path / "a-run").mkdir()
    (tmp_path / "a-run" / "metrics.jsonl").write_text("")
    with qtbot.waitSignal(panel.controller.error, timeout=10_000):
        panel.controller.follow_run(str(tmp_path))
    assert "choose one of them" in panel.controller.last_error
    qtbot.waitUntil(lambda: not panel.controller.followers, timeout=10_000)
    assert not panel.follow_bar.isVisibleTo(panel)


def test_the_command_line_follows_a_run(qtbot, tmp_path, monkeypatch, settings):
    from workbench.app import main as entry
    from workbench.app import window as window_module

    real = window_module.build_window
    run = tmp_path / "run"
    run.mkdir()
    write(run, "metrics.jsonl", step_line(10, 3.0))
    shown = {}

    def build_window(*_args, **_kwargs):
        shown["window"] = window = real(settings)
        qtbot.addWidget(window)
        return window

    monkeypatch.setattr("workbench.app.window.build_window", build_window)
    monkeypatch.setattr("PySide6.QtWidgets.QApplication.exec", lambda self: 0)
    monkeypatch.setattr(entry, "preload_heavy_modules", lambda: None)
    assert entry.main(["--follow", str(run)]) == 0
    window = shown["window"]
    # Following starts once the window has painted (app/first_paint.py), as the corpus does.
    qtbot.waitUntil(lambda: os.path.abspath(run) in window.controller.followers, timeout=10_000)
    panel = window.panels["training"]
    qtbot.waitUntil(lambda: steps_of(panel, str(run)) == [10], timeout=10_000)
    assert window.controller.corpus is None and not window.controller.jobs.busy


def test_a_followed_runs_checkpoint_is_waited_for_and_said_so(qtbot, settings, tmp_path):
    """`--follow RUN` screenshots showed "No model yet: train one, or open a checkpoint" in
    the inspectors: they were taken while the run's checkpoint still loaded (seconds: torch
    and the weights). The views say they wait for the followed run's checkpoint, and the
    screenshot's settle waits until it is loaded."""
    from workbench.app.panels import panel_types
    from workbench.app.window import settle
    from workbench.core.events import CheckpointLoaded
    from workbench.qt.gallery.fake_traces import snapshot
    from workbench.qt.main_window import MainWindow

    run = tmp_path / "server-run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.json").write_text("{}", encoding="utf-8")
    window = MainWindow(WorkbenchController(FakeBackend()), panel_types(), settings=settings)
    qtbot.addWidget(window)
    window.show()
    assert window.controller.follow_run(str(run))
    gates, generate = window.panels["gates"], window.panels["generate"]
    waiting = "No model yet: waiting for a checkpoint of the followed run."
    assert gates.probe_bar.status.text() == waiting and generate.source.text() == waiting
    assert not settle(window, timeout_s=0.5, quiet_s=0.1)  # the checkpoint is not loaded yet
    follower = window.controller.followers[str(run)]
    with qtbot.waitSignal(gates.probe_bar.result_ready, timeout=WAIT_MS):
        follower._on_event(CheckpointLoaded(str(run), "latest", 100, 200, snapshot(100)))
    assert settle(window, timeout_s=10, quiet_s=0.1)
    assert generate.source.text().startswith("Model:")
    window.controller.stop_following(str(run))
    qtbot.waitUntil(lambda: not window.controller.followers, timeout=WAIT_MS)
    window.close()
