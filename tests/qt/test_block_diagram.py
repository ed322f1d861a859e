"""The Architecture panel's block diagram: its boxes hold their titles and shapes whole, also
in presentation mode (fixed 112 × 46 px boxes cut "Embedding E" to "mbedding" at 1.6)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF

from workbench.core.config.summary import LayerRow, ModelSummary
from workbench.qt.widgets.block_diagram import BlockDiagram

ROWS = (LayerRow("embedding", "Embedding", "(None, T, 64)", 5120, 5120),
        LayerRow("lstm layer 1", "LSTM", "(None, T, 256)", 329_728, 328_704),
        LayerRow("head (Linear)", "Linear", "(None, T, 80)", 20_560, 20_560))


def test_boxes_grow_with_the_font_and_hold_their_text(qtbot):
    diagram = BlockDiagram()
    qtbot.addWidget(diagram)
    diagram.resize(420, 100)
    diagram.set_summary(ModelSummary("lstm", "LSTM", ROWS, 355_408, 354_384, 32, 128, 0, 0))
    normal_w, normal_h = diagram.box_size()
    normal_height = diagram.height()
    font = QFont(diagram.font())
    font.setPointSizeF(font.pointSizeF() * 1.6)  # presentation mode
    diagram.setFont(font)
    width, height = diagram.box_size()
    bold, small = (QFontMetricsF(f) for f in diagram.fonts())
    for box in diagram.boxes:
        assert bold.horizontalAdvance(box.title) <= width - 6, box.title
        assert small.horizontalAdvance(box.detail) <= width - 6, box.detail
    assert bold.height() + small.height() <= height - 6
    assert width > normal_w and height > normal_h
    assert diagram.height() > normal_height  # fewer boxes a line, taller boxes: more room
