"""The Training panel against recorded training events (no torch): curves, run list, samples,
snapshots, controls, run folders and export."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from workbench.app.training_backend import TrainingBackend
from workbench.core.events import (
    EvalLogged,
    SampleGenerated,
    StepLogged,
)
from workbench.core.training import runs
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_training import FakeTraining
from workbench.qt.panels.training import TrainingPanel
from workbench.qt.panels.training.series import ema


@pytest.fixture
def panel(make_panel, tmp_path):
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    widget = make_panel(TrainingPanel, FakeBackend(training=FakeTraining(run_dir)))
    widget.resize(1300, 520)
    return widget


# Waits are upper bounds: 10 s ran out on a loaded 2-core CI machine (27 Nov), where a fake
# run's thread may wait seconds for a core; a passing test waits no longer for them.
def train_recorded(qtbot, panel):
    with qtbot.waitSignal(panel.controller.jobs.busy_changed, timeout=120_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.start_training()


def test_starting_a_run_leaves_the_plots_where_they_are(qtbot, panel):
    """Nothing above the plots appears or vanishes when a run starts or its first points
    arrive: a relayout resized every plot, and repainting them all froze the window for
    about 0.1 s at Train."""
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.run_header.isVisible() and "No run selected" in panel.run_header.text()
    assert panel.curves.hint.isVisible()
    before = panel.curves.graphics.size()
    train_recorded(qtbot, panel)
    qtbot.wait(100)  # the curves' redraw timer
    assert "run-a" in panel.run_header.text()
    assert not panel.curves.hint.isVisible()
    assert panel.curves.graphics.size() == before


def test_recorded_run_draws_curves_sample_and_snapshot(qtbot, panel, tmp_path):
    snapshots = []
    panel.controller.snapshot_changed.connect(snapshots.append)
    train_recorded(qtbot, panel)
    key = str(tmp_path / "run-a")
    series = panel.series[key]
    # the rollback to step 60 dropped step 70 before it was trained again
    assert list(series.train["step"]) == [10, 20, 30, 40, 50, 60, 80, 90, 100]
    assert list(series.val["step"]) == [50, 100]
    assert [d.step for d in series.divergences] == [70]
    assert snapshots and snapshots[0].step == 50
    assert "To be, or not to be" in panel.samples.toPlainText()
    assert "Step 70: loss is nan. Rolled back to step 60" in panel.samples.toPlainText()
    assert panel.run_list.item_for(key).text() == "recorded"
    assert runs.read_settings(tmp_path / "run-a")["colour"] == series.colour
    loss_curve = panel.curves._items[key][("loss", "smooth")]
    x, y = loss_curve.getData()
    assert len(x) == 9 and y[-1] < y[0]
    assert np.allclose(y, ema(series.train["loss"], 0.6))
    val_x, _ = panel.curves._items[key][("loss", "val")].getData()
    assert list(val_x) == [50, 100]
    assert panel.curves.rollbacks.count(key) == 2  # one line on the loss, one on the norm
    assert panel.controls.start.isEnabled() and not panel.controls.stop.isEnabled()


@pytest.mark.slow
def test_axis_smoothing_and_log_scale_change_the_plot(qtbot, panel, tmp_path):
    train_recorded(qtbot, panel)
    key = str(tmp_path / "run-a")
    panel.curves.x_axis.setCurrentIndex(1)  # tokens seen
    x, _ = panel.curves._items[key][("loss", "smooth")].getData()
    assert x[0] == 10 * 256
    panel.curves.smoothing.setValue(0)
    _, y = panel.curves._items[key][("loss", "smooth")].getData()
    assert np.allclose(y, panel.series[key].train["loss"])
    raw_x, _ = panel.curves._items[key][("loss", "raw")].getData()
    assert raw_x is None or len(raw_x) == 0  # no faint copy when nothing is smoothed
    panel.curves.log_scale.setChecked(True)
    assert panel.curves.plots["loss"].ctrl.logYCheck.isChecked()
    assert not panel.curves.plots["lr"].ctrl.logYCheck.isChecked()


def test_hiding_renaming_and_exporting_runs(qtbot, panel, tmp_path):
    train_recorded(qtbot, panel)
    key = str(tmp_path / "run-a")
    item = panel.run_list.item_for(key)
    item.setText("baseline")
    assert runs.read_settings(tmp_path / "run-a")["name"] == "baseline"
    bar = panel.curves.export_bar
    bar.export_to("CSV", tmp_path / "curves.csv")
    rows = list(csv.DictReader((tmp_path / "curves.csv").read_text().splitlines()))
    assert len(rows) == 9 + 2 and rows[0]["run"] == "baseline"
    assert bar.export_to("PNG", tmp_path / "curves.png").stat().st_size > 1000
    assert bar.export_to("SVG", tmp_path / "curves.svg").stat().st_size > 1000
    from PySide6.QtCore import Qt

    item.setCheckState(Qt.CheckState.Unchecked)
    assert key not in panel.curves._items
    assert panel.curves.csv_data()[1][0] == []


def test_pause_and_stop_act_on_the_running_job(qtbot, tmp_path, make_panel):
    panel = make_panel(TrainingPanel, FakeBackend(training=FakeTraining(tmp_path, delay=0.05)))
    controller = panel.controller
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.controls.stop.isEnabled(), timeout=60_000)
    panel.controls.pause.click()
    assert controller.jobs.paused and panel.controls.pause.text() == "Resume"
    panel.controls.pause.click()
    assert not controller.jobs.paused
    with qtbot.waitSignal(controller.jobs.busy_changed, timeout=120_000):
        panel.controls.stop.click()
    assert not panel.controls.stop.isEnabled() and panel.controls.start.isEnabled()
    assert panel.live_key == ""


@pytest.mark.slow
def test_opening_a_run_folder_written_elsewhere_shows_it(qtbot, panel, tmp_path):
    folder = tmp_path / "headless"
    folder.mkdir()
    log = runs.RunLog(folder)
    for step in (10, 20, 30):
        log.write(StepLogged(step, 3.0 - step / 20, 1e-3, 0.3, False, step * 64, 900.0, step))
    log.write(EvalLogged(30, 1.8, math.exp(1.8), 1.8 / math.log(2)))
    log.write(SampleGenerated(30, "O Romeo"))
    log.close()
    with qtbot.waitSignal(panel.controller.queries.busy_changed, timeout=120_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.open_run(str(folder))
    series = panel.series[str(folder)]
    assert list(series.train["step"]) == [10, 20, 30] and series.val.size == 1
    assert "O Romeo" in panel.samples.toPlainText()
    assert str(folder) in panel.curves._items


def test_a_long_run_log_becomes_curves_off_the_gui_thread(qtbot, panel, tmp_path,
                                                        monkeypatch):
    import threading

    from workbench.qt.panels.training import series as series_module

    folder = tmp_path / "long"
    folder.mkdir()
    log = runs.RunLog(folder)
    for step in range(1, 2001):
        log.write(StepLogged(step, 3.0, 1e-3, 0.3, False, step * 64, 900.0, step))
    log.close()
    threads = set()
    original = series_module.RunSeries.add
    monkeypatch.setattr(series_module.RunSeries, "add", lambda self, event: (
        threads.add(threading.current_thread() is threading.main_thread()),
        original(self, event)))
    with qtbot.waitSignal(panel.controller.queries.busy_changed, timeout=120_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.open_run(str(folder))
    assert panel.series[str(folder)].train.size == 2000
    assert threads == {False}  # every event was added on the query thread


def test_renaming_a_run_whose_folder_cannot_be_written_says_so(qtbot, panel, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "metrics.jsonl").write_text("")
    (folder / "run.json").mkdir()  # as unwritable as a read-only folder, also for root
    panel._on_renamed(str(folder), "mine")
    assert "could not be saved" in panel.controller.last_error
    assert "Error" not in panel.controller.last_error


def test_bad_settings_and_missing_corpus_give_messages(qtbot, tmp_path, make_panel):
    panel = make_panel(TrainingPanel, FakeBackend(training=TrainingBackend()))
    controller = panel.controller
    assert not panel.start_training()
    assert "Load a corpus and tokenize it" in controller.last_error
    panel.controls.form.editors["lr"].setText("")
    assert not panel.controls.start.isEnabled()
    assert not panel.start_training()
    assert "Training settings" in controller.last_error
    (tmp_path / "bad.toml").write_text("[corpus\n")
    assert not panel.open_recipe(str(tmp_path / "bad.toml"))
    assert "bad.toml is not valid TOML" in controller.last_error


def test_inspecting_a_run_without_checkpoint_says_so(qtbot, panel, tmp_path):
    with qtbot.waitSignal(panel.controller.queries.busy_changed, timeout=120_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.inspect_checkpoint(str(tmp_path / "run-a"), "best")
    assert "run-a has no best checkpoint yet" in panel.controller.last_error


def test_word_vectors_chosen_in_the_session_go_to_the_next_run(qtbot, panel):
    chosen = (np.zeros((4, 2), dtype=np.float32), True)
    panel.controller.embedding_init = chosen
    train_recorded(qtbot, panel)
    assert panel.controller.backend.training.embedding_init is chosen


def test_hover_reads_out_the_step_and_each_visible_runs_value(qtbot, panel, tmp_path):
    train_recorded(qtbot, panel)
    key = str(tmp_path / "run-a")
    panel.show()
    text = panel.curves.readout.show_x("loss", 52.0)  # nearest logged step: 50
    series = panel.series[key]
    loss_at_50 = series.train["loss"][list(series.train["step"]).index(50)]
    assert text.splitlines()[0] == "Step 52"
    assert f"recorded: {loss_at_50:.4g} (step 50)" in text
    assert "recorded validation: 2.5 (step 50)" in text
    assert all(line.isVisible() for line in panel.curves.readout.lines.values())
    panel.run_list.item_for(key).setCheckState(Qt.CheckState.Unchecked)
    assert panel.curves.readout.show_x("loss", 52.0) == ""  # hidden runs say nothing


def test_the_header_follows_the_selected_run_and_names_its_own_corpus(qtbot, panel, tmp_path):
    from workbench.core.config.models import GruConfig
    from workbench.core.training.recipe import Recipe, save_recipe

    train_recorded(qtbot, panel)
    other = tmp_path / "other-run"
    other.mkdir()
    runs.RunLog(other).write(StepLogged(10, 2.0, 1e-3, 0.3, False, 640, 900.0, 10))
    save_recipe(Recipe("char-gru", str(tmp_path / "sonnets.txt"), GruConfig(hidden_size=64)),
                other / "recipe.toml")
    with qtbot.waitSignal(panel.controller.queries.busy_changed, timeout=120_000,
                          check_params_cb=lambda busy: not busy):
        panel.open_run(str(other))
    panel.run_list.select(str(other))
    header = panel.run_header.text()
    assert "GRU, 1 layer × 64, on sonnets (char tokens)" in header and str(other) in header
    panel.run_list.select(str(tmp_path / "run-a"))
    assert "recorded" in panel.run_header.text() and "sonnets" not in panel.run_header.text()


class PastRuns(FakeTraining):
    """Two run folders written before the window opened."""

    def __init__(self, run_dir, past):
        super().__init__(run_dir)
        self.past = past

    def list_runs(self):
        return [(folder, runs.run_label(folder)) for folder in self.past]


def test_picking_a_past_run_shows_its_curves(qtbot, tmp_path):
    """A run picked in the list (the newest is picked at start) is ticked and drawn: the
    header named it beside empty plots, which read as a broken run."""
    past = []
    for name, loss in (("20261101-120000-lm", 3.0), ("20261101-130000-lm", 2.0)):
        folder = tmp_path / name
        folder.mkdir()
        lines = [runs.event_to_json(StepLogged(step, loss - step / 100, 1e-3, 0.4, False,
                                               step * 64, 900.0, step / 10))
                 for step in (10, 20, 30)]
        (folder / "metrics.jsonl").write_text("\n".join(lines) + "\n")
        past.append(folder)
    controller = WorkbenchController(FakeBackend(training=PastRuns(tmp_path / "run-a", past)))
    panel = TrainingPanel(controller)
    qtbot.addWidget(panel)
    panel.show()
    try:
        old = str(past[0])
        panel.run_list.select(old)
        item = panel.run_list.item_for(old)
        assert item.checkState() == Qt.CheckState.Checked
        qtbot.waitUntil(lambda: old in panel.curves._items, timeout=30_000)
        x, _ = panel.curves._items[old][("loss", "smooth")].getData()
        assert list(x) == [10, 20, 30]
        assert not panel.curves.hint.isVisible()
        # read, it keeps the list's name: the recipe, then when it started (two runs of one
        # recipe stay apart in a narrow list, which elides the middle)
        assert item.text() == "lm 11-01 12:00"
        assert "lm 11-01 12:00" in panel.run_header.text()
    finally:
        controller.shutdown()


def test_the_window_opens_on_the_newest_past_run_alone(qtbot, tmp_path):
    """Of the past runs listed at start only the newest is ticked and read: ticking each as
    it was listed read all fifty."""
    past = []
    for minute in range(3):
        folder = tmp_path / f"2026110{minute + 1}-120000-lm"
        folder.mkdir()
        (folder / "metrics.jsonl").write_text(runs.event_to_json(
            StepLogged(10, 2.0, 1e-3, 0.4, False, 640, 900.0, 1.0)) + "\n")
        past.append(folder)
    controller = WorkbenchController(FakeBackend(training=PastRuns(tmp_path / "run-a", past)))
    panel = TrainingPanel(controller)
    qtbot.addWidget(panel)
    try:
        checked = [panel.run_list.item_for(str(folder)).checkState() == Qt.CheckState.Checked
                   for folder in past]
        assert checked == [False, False, True]
        assert panel.run_list.current_key() == str(past[-1])
        qtbot.waitUntil(lambda: str(past[-1]) in panel.curves._items, timeout=30_000)
        assert set(panel.curves._items) == {str(past[-1])}
    finally:
        controller.shutdown()
