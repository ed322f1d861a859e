"""The live curves with long series: decimation keeps spikes, ranges follow the data in steps
(so axes are not laid out again at every point), a hand zoom stops following and shows the
zoomed stretch in detail, and the Follow box brings the whole run back."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from workbench.core.events import StepLogged
from workbench.qt.panels.training.curve_ranges import followed_x, followed_y
from workbench.qt.panels.training.curves import CurvesView
from workbench.qt.panels.training.series import PeakDecimator, RunSeries, peak_indices


def logged(series: RunSeries, steps: range, loss=lambda step: 4.0 / (1 + step / 500)) -> None:
    for step in steps:
        series.add(StepLogged(step, loss(step), 1e-3, 0.5, False, 256 * step, 5e4, step / 10))


@pytest.fixture
def view(qtbot):
    widget = CurvesView()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_peak_decimation_keeps_every_spike_and_the_newest_points():
    y = np.ones(100_003)
    y[[777, 50_001, 99_990]] = [9.0, -3.0, 7.0]
    index = peak_indices(y, 256)
    assert len(index) <= 2 * 256 + 2 * (100_003 // 256)
    kept = y[index]
    assert {9.0, -3.0, 7.0} <= set(kept)
    assert np.all(np.diff(index) >= 0)  # in order, so the line is drawn left to right
    assert index[-1] == 100_002


def test_incremental_decimation_matches_decimating_from_scratch():
    rng = np.random.default_rng(1)
    y = rng.standard_normal(60_000)
    decimator = PeakDecimator()
    for n in (5_000, 5_001, 5_120, 30_000, 30_007, 60_000):
        assert np.array_equal(decimator.indices(y[:n], 512, ("run", "loss")),
                              peak_indices(y[:n], 512))
    # other data under the same length (a rollback, another column) must not reuse buckets
    assert np.array_equal(decimator.indices(-y, 512, ("run", "lr")), peak_indices(-y, 512))


def test_ranges_move_only_when_the_data_leaves_them_or_fills_too_little():
    assert followed_x(0, 100, (0, 125)) == (0, 125)  # fits: unchanged
    low, high = followed_x(0, 130, (0, 125))  # left it: refit with room on the right
    assert low == 0 and high > 130
    assert followed_x(0, 10, (0, 125)) != (0, 125)  # a tenth of it: refit
    assert followed_y(1.5, 4.0, (1.0, 4.5)) == (1.0, 4.5)
    low, high = followed_y(0.8, 4.0, (1.0, 4.5))
    assert low < 0.8 and high > 4.0


@pytest.mark.slow
def test_new_points_inside_the_range_leave_the_axes_alone(qtbot, view):
    series = RunSeries("run", "run", "#0072B2")
    logged(series, range(1, 2001))
    view.set_runs([series])
    loss_box = view.plots["loss"].vb
    before = loss_box.viewRange()
    x_low, x_high = before[0]
    assert x_low <= 1 and x_high >= 2000  # the whole run is in view
    logged(series, range(2001, 2101))  # inside the headroom
    view.redraw()
    assert loss_box.viewRange() == before
    logged(series, range(2101, 4001))  # far past it
    view.redraw()
    assert loss_box.viewRange()[0][1] >= 4000


@pytest.mark.slow
def test_zooming_stops_following_shows_detail_and_follow_fits_again(qtbot, view):
    series = RunSeries("run", "run", "#0072B2")
    logged(series, range(1, 100_001), loss=lambda step: 2.0 + 0.5 * np.sin(step / 7.0))
    view.set_runs([series])
    smooth = view._items["run"][("loss", "raw")]
    assert len(smooth.getData()[0]) < 3000  # decimated for the whole run
    box = view.plots["loss"].vb
    box.setXRange(50_000, 50_300, padding=0)
    box.sigRangeChangedManually.emit([True, False])  # what a mouse drag or wheel emits
    assert not view.follow.isChecked()
    qtbot.waitUntil(lambda: smooth.getData()[0][0] >= 49_990, timeout=2000)
    x, _ = smooth.getData()
    assert x[0] <= 50_000 and x[-1] >= 50_300 and len(x) >= 300  # every point of the stretch
    logged(series, range(100_001, 100_101))
    view.redraw()
    assert box.viewRange()[0] == pytest.approx([50_000, 50_300])  # new points do not move it
    view.follow.setChecked(True)
    low, high = box.viewRange()[0]
    assert low <= 1 and high >= 100_100


def test_plots_follow_the_curves_the_runs_tasks_declare(view, monkeypatch):
    """A run of another task brings its declared curves (an accuracy in percent, no training
    line) without the view knowing that task; a language-model run keeps its six plots."""
    from dataclasses import dataclass
    from typing import ClassVar

    from workbench.core.config import tasks
    from workbench.core.config.base import TaskConfig
    from workbench.core.events import EvalLogged

    @dataclass
    class MatchingConfig(TaskConfig):  # the base gives what the window asks of every task
        name: ClassVar[str] = "matching"
        title: ClassVar[str] = "Matching"
        curves: ClassVar = (tasks.Curve("val_loss", "Loss (nats per target token)", "loss"),
                            tasks.Curve("exact", "Exact match", log_ok=False, unit="percent"))

    monkeypatch.setitem(tasks.TASK_CONFIGS, "matching", MatchingConfig)
    lm = RunSeries("lm", "lm", "#1f77b4")
    logged(lm, range(1, 50))
    view.set_runs([lm])
    assert list(view.plots) == ["loss", "perplexity", "bits", "lr", "grad_norm", "clip_rate",
                                "tok_s"]
    other = RunSeries("s2s", "s2s", "#ff7f0e", task="matching")
    logged(other, range(1, 50))
    other.add(EvalLogged(40, 1.5, tokens_seen=10_000, elapsed_s=4.0, metrics={"exact": 0.25}))
    view.set_runs([other])
    assert list(view.plots) == ["loss", "exact", "lr", "grad_norm", "clip_rate", "tok_s"]
    assert view.plots["exact"].titleLabel.text == "Exact match (%)"
    points = view._items["s2s"][("exact", "val")]
    assert list(points.getData()[1]) == [25.0]  # the share drawn in percent
    assert ("exact", "raw") not in view._items["s2s"]  # no training line for an accuracy
    view.log_scale.setChecked(True)
    assert not view.plots["exact"].ctrl.logYCheck.isChecked()
    lm.visible = True
    view.set_runs([lm, other])  # both: one task at a time, never on one plot
    assert list(view.plots) == ["loss", "exact", "lr", "grad_norm", "clip_rate", "tok_s"]
    assert "lm" not in view._items


def test_a_tasks_result_plot_shows_the_latest_validation(view):
    """Seq2seq declares exact match by input length: drawn against length, not step."""
    from workbench.core.events import EvalLogged

    run = RunSeries("s2s", "dates", "#0072B2", task="seq2seq")
    logged(run, range(1, 30))
    for step, accuracy in ((10, [0.2, 0.1]), (20, [0.9, 0.5])):
        run.add(EvalLogged(step, 1.0, metrics={"exact_match": 0.5}, results={
            "accuracy_by_length": {"length": [5, 9], "exact_match": accuracy,
                                   "count": [3, 3]}}))
    view.set_runs([run])
    assert "accuracy_by_length" in view.plots
    curve = view._items["s2s"][("accuracy_by_length", "result")]
    x, y = curve.getData()
    assert list(x) == [5, 9] and list(y) == [90.0, 50.0]
    assert view.plots["accuracy_by_length"].getAxis("bottom").labelText.startswith("input")
    assert view.plots["accuracy_by_length"] not in view.follower.plots  # its own x range


def test_a_first_validation_shows_as_a_dot_in_the_runs_colour(qtbot, view):
    """The validation points are dots on a dashed line. The first validation is a lone point:
    with no line to draw through it, the dot must still show."""
    from PySide6.QtGui import QColor

    from workbench.core.events import EvalLogged

    run = RunSeries("a", "a", "#d62728")
    logged(run, range(1, 60))
    run.add(EvalLogged(50, 2.5, tokens_seen=12_800, elapsed_s=5.0))
    view.set_runs([run])
    qtbot.wait(50)
    plot = view.plots["loss"]
    item = view._items["a"][("loss", "val")]
    assert list(item.getData()[0]) == [50]
    image = view.graphics.grab().toImage()
    scene_point = plot.vb.mapViewToScene(pg.Point(50, 2.5))
    centre = view.graphics.mapFromScene(scene_point)
    ratio = image.devicePixelRatio()
    x, y = round(centre.x() * ratio), round(centre.y() * ratio)
    around = [QColor(image.pixel(x + dx, y + dy)) for dx in range(-2, 3) for dy in range(-2, 3)]
    red = [c for c in around if c.red() > 180 and c.green() < 90 and c.blue() < 90]
    assert len(red) >= 9  # a dot of 6 px: most of the 5x5 pixels around its centre


def test_the_clip_threshold_is_drawn_on_the_gradient_norm_and_the_clip_rate_in_percent(
        qtbot, view):
    """Issue 33: a run's clipping threshold is a dashed line on ‖g‖₂ in its colour (none for a
    run without clipping), and the share of clipped steps is its own plot, in percent."""
    clipped = RunSeries("a", "a", "#d62728", grad_clip=1.0)
    for step in range(1, 41):
        clipped.add(StepLogged(step, 3.0, 1e-3, 1.4 if step % 4 == 0 else 0.6, step % 4 == 0,
                               256 * step, 5e4, step / 10, clip_rate=0.25))
    free = RunSeries("b", "b", "#0072B2", grad_clip=0.0)
    logged(free, range(1, 41))
    view.set_runs([clipped, free])
    line = view._items["a"][("grad_norm", "clip")]
    assert isinstance(line, pg.InfiniteLine) and line.value() == 1.0 and line.angle == 0
    assert line in view.plots["grad_norm"].items
    assert ("grad_norm", "clip") not in view._items["b"]
    _, shares = view._items["a"][("clip_rate", "raw")].getData()
    assert np.allclose(shares, 25.0)
    assert view.plots["clip_rate"].titleLabel.text == "Steps clipped (%)"
    clipped.visible = False
    clipped.version += 1  # as the panel does when a run is unticked
    view.set_runs([clipped, free])  # a hidden run takes its line with it
    assert line not in view.plots["grad_norm"].items
