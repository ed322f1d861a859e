"""Every token of a heatmap axis is labelled (smaller, or upright), never every 2nd or 3rd;
plot titles and axes are dark on the white plots (issue 31, item 6 and defect 7)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QImage, QPainter

from workbench.qt.widgets.heatmap import Heatmap

PROLOGUE = ("Romeo and Juliet are the two lovers whose deaths ultimately reconcile their "
            "feuding families in fair Verona where we lay our scene from ancient grudge "
            "break to new mutiny")
TEXT = "the quick brown fox jumps over the lazy dog, then some more text to show it all"


def drawn_labels(axis) -> list[str]:
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _, _, text in texts]


def shown(qtbot, heatmap, width, height):
    heatmap.resize(width, height)
    heatmap.show()
    qtbot.waitExposed(heatmap)
    qtbot.wait(50)


def test_every_character_of_a_long_probe_is_labelled(qtbot):
    heatmap = Heatmap("Gates", "token", "unit", export=False)
    qtbot.addWidget(heatmap)
    heatmap.set_data(np.random.default_rng(0).random((64, len(TEXT))),
                     [str(i) for i in range(64)], list(TEXT))
    shown(qtbot, heatmap, 700, 420)
    bottom = heatmap.plot.getAxis("bottom")
    labels = drawn_labels(bottom)
    assert len(labels) == len(TEXT) == 79  # the old axis kept every 2nd: 40
    assert "".join(labels).replace("·", " ") == TEXT
    assert bottom.label_px >= 7  # small, but letters


def test_long_word_columns_turn_upright_and_every_row_token_is_labelled(qtbot):
    words = PROLOGUE.split()
    heatmap = Heatmap("Attention", "key", "query", export=False)
    qtbot.addWidget(heatmap)
    heatmap.set_data(np.random.default_rng(1).random((len(words), len(words))), words, words)
    shown(qtbot, heatmap, 560, 520)
    bottom, left = heatmap.plot.getAxis("bottom"), heatmap.plot.getAxis("left")
    assert bottom.upright  # 'ultimately' is wider than a column
    assert drawn_labels(bottom) == words
    assert drawn_labels(left) == words  # the old rows kept what fit a line apart
    assert heatmap.cell_text(2, 6) == f"Juliet · lovers: {heatmap.values[2, 6]:.4g}"


def test_plot_titles_and_axes_are_dark_on_white():
    plot = pg.PlotItem(title="Loss")
    ink = QColor(plot.getAxis("left").textPen().color())
    assert max(ink.red(), ink.green(), ink.blue()) < 60  # pyqtgraph's default grey is 150
    assert max(QColor(plot.getAxis("bottom").pen().color()).getRgb()[:3]) < 60
    assert "#1a1a1a" in plot.titleLabel.item.toHtml().lower()


def test_lesson_and_worked_maths_is_rendered_not_printed():
    """h_{t−1} printed with its braces, Kᵀ (a glyph the fonts lack) as 'Kˢ', and the weight
    α_{23,19} as 'α_2319' (issue 31, defect 10)."""
    from workbench.qt.widgets.math_text import math_html

    assert math_html("h_t = tanh(U h_{t−1} + b)") == \
        "h<sub>t</sub> = tanh(U h<sub>t−1</sub> + b)"
    assert math_html("QKᵀ/√d_k") == "QK<sup>T</sup>/√d<sub>k</sub>"
    assert math_html("α_{23,19} < 1 & set max_steps") == \
        "α<sub>23,19</sub> &lt; 1 &amp; set max_steps"
