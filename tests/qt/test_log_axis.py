"""Log axes label whole decades (no smear of 2·10¹ 3·10¹ ... labels), with a fallback for
ranges narrower than two decades, and every log plot of the app uses them."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QImage, QPainter

from workbench.core.corpus.statistics import corpus_statistics
from workbench.qt.panels.corpus.stats_view import StatsView
from workbench.qt.widgets.log_axis import DecadeLogAxis, log_axes

DECADE_LABELS = {"1", "10¹", "10²", "10³", "10⁴", "10⁵"}


def drawn_labels(axis: pg.AxisItem) -> list[tuple[str, object]]:
    """(text, rectangle) of every tick label the axis would paint now."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(text, rect) for rect, _, text in texts if text]


def shown_plot(qtbot, widget, width=900, height=500):
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def assert_no_overlap(labels) -> None:
    rects = [rect for _, rect in labels]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b), [text for text, _ in labels]


def test_zipf_plot_labels_only_decades_on_both_axes(qtbot):
    words = " ".join(f"w{i} " * max(1, 3000 // i) for i in range(1, 3000))
    view = shown_plot(qtbot, StatsView())
    view.show_stats(corpus_statistics([words]))
    view.plot.getPlotItem().vb.autoRange()
    for side in ("bottom", "left"):
        labels = drawn_labels(view.plot.getAxis(side))
        texts = [text for text, _ in labels]
        assert len(texts) >= 3, (side, texts)
        assert set(texts) <= DECADE_LABELS, (side, texts)
        assert_no_overlap(labels)


def test_minor_ticks_stay_as_grid_lines_between_decades(qtbot):
    plot = shown_plot(qtbot, pg.PlotWidget(axisItems=log_axes()))
    plot.setLogMode(x=True, y=True)
    plot.setXRange(0, 3, padding=0)  # 1 to 1000 over ~850 px: room for the 2..9 lines
    axis = plot.getAxis("bottom")
    levels = axis.tickValues(*axis.range, 850)
    assert levels[0][1] == [0.0, 1.0, 2.0, 3.0]
    assert len(levels[1][1]) == 3 * 8  # 2..9 in each of the three decades


def test_a_range_under_two_decades_labels_one_two_five_steps(qtbot):
    plot = shown_plot(qtbot, pg.PlotWidget(axisItems=log_axes("left")), height=300)
    plot.plot([0, 1, 2], [2.0, 4.0, 8.0])
    plot.setLogMode(y=True)
    plot.setYRange(0.2, 0.95, padding=0)  # a loss between about 1.6 and 8.9
    texts = [text for text, _ in drawn_labels(plot.getAxis("left"))]
    assert {"2", "5"} <= set(texts)
    assert "1" not in texts  # below the view


def test_a_range_without_any_step_labels_round_values_with_their_decimals(qtbot):
    plot = shown_plot(qtbot, pg.PlotWidget(axisItems=log_axes("left")), height=300)
    plot.setLogMode(y=True)
    plot.setYRange(math.log10(1.55), math.log10(1.75), padding=0)  # a loss late in a run
    labels = drawn_labels(plot.getAxis("left"))
    texts = [text for text, _ in labels]
    assert len(texts) >= 3, texts
    assert all(1.55 - 1e-9 <= float(t) <= 1.75 + 1e-9 for t in texts), texts
    assert "1.60" in texts and "1.70" in texts  # two decimals: the step is 0.05
    assert_no_overlap(labels)


def test_a_long_range_on_a_short_axis_thins_the_decade_labels(qtbot):
    plot = shown_plot(qtbot, pg.PlotWidget(axisItems=log_axes("left")), height=200)
    plot.setLogMode(y=True)
    plot.setYRange(-30, 0, padding=0)  # gradient norms clamped at 1e-30
    labels = drawn_labels(plot.getAxis("left"))
    assert 2 <= len(labels) <= 10
    assert_no_overlap(labels)


def test_linear_mode_is_unchanged():
    axis = DecadeLogAxis("bottom")
    plain = pg.AxisItem("bottom")
    assert axis.tickValues(0, 10, 500) == plain.tickValues(0, 10, 500)
