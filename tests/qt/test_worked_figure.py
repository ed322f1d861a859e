"""The Worked examples panel draws the figure a computation carries (issue 33): the positional
encoding's first dimensions against position at the width the student types, and the activation
functions with their derivatives; an example without a figure hides it."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from workbench.qt.panels.worked import WorkedExamplesPanel


def curves(panel) -> list[pg.PlotDataItem]:
    return panel.figure.curve_items()


def test_the_positional_curves_follow_the_width_typed(make_panel):
    panel = make_panel(WorkedExamplesPanel)
    panel.choose("positions")
    panel.set_text("d", "20")
    panel.set_text("n", "50")
    assert panel.figure.isVisibleTo(panel)
    drawn = curves(panel)
    assert len(drawn) == 6
    x, y = drawn[2].getData()
    assert x[0] == 0 and x[-1] == 49
    assert np.allclose(y, np.sin(x / 10000 ** (2 / 20)))  # dim 2: sin, i = 1
    assert len(panel.figure.plots) == 1  # one plot with a legend
    title = panel.figure.graphics.ci.getItem(0, 0).text
    assert "d = 20" in title
    header, columns = panel.figure.csv_data()
    assert header[:2] == ["position pos", "dim 0 (sin, i = 0)"] and columns[0][-1] == 49
    panel.set_text("d", "4")  # fewer dimensions than curves shown: all of them
    assert len(curves(panel)) == 4


def test_activations_draw_each_derivative_dashed_in_its_functions_colour(make_panel):
    panel = make_panel(WorkedExamplesPanel)
    panel.choose("activations")
    drawn = {item.name(): item for item in curves(panel)}
    assert set(drawn) >= {"sigmoid", "sigmoid′", "ReLU", "ReLU′", "ELU′"}
    function, slope = drawn["tanh"].opts["pen"], drawn["tanh′"].opts["pen"]
    assert slope.style() == Qt.PenStyle.DashLine and function.style() == Qt.PenStyle.SolidLine
    assert slope.color() == function.color()
    assert drawn["sigmoid"].opts["pen"].color() != function.color()
    colours = {drawn[name].opts["pen"].color().name() for name in
               ("sigmoid", "tanh", "ReLU", "Leaky ReLU", "ELU")}
    assert len(colours) == 5  # each function its own colour
    assert list(panel.figure.plots) == ["sigmoid", "tanh", "ReLU", "Leaky ReLU", "ELU"]
    panel.choose("layernorm")  # no figure: the plot goes
    assert not panel.figure.isVisibleTo(panel)


def test_softmax_and_argmax_as_bars_side_by_side(make_panel):
    """The course's [1, 3, 2]: softmax's weights beside argmax's one-hot, as bars."""
    panel = make_panel(WorkedExamplesPanel)
    panel.choose("softmax")
    bars = [item for item in curves(panel) if isinstance(item, pg.BarGraphItem)]
    assert len(bars) == 2
    heights = [list(np.round(b.opts["height"], 4)) for b in bars]
    assert heights == [[0.09, 0.6652, 0.2447], [0.0, 1.0, 0.0]]
    lefts = [b.opts["x"][0] for b in bars]
    assert lefts[0] < lefts[1]  # softmax's bar left of argmax's, around x = 0
