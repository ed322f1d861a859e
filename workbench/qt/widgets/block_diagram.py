"""A block diagram of a model drawn from its summary: tokens → layers → softmax, with shapes.

Boxes run left to right joined by arrows; consecutive identical layers (stacked blocks of the
same shape and size) fold into one box marked ×N so a 12-block transformer stays readable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from workbench.core.config.summary import LayerRow, ModelSummary
from workbench.core.recurrent_cells import CELLS
from workbench.qt.widgets.figure_view import arrow_head

_FILL = {  # Okabe–Ito tints: embeddings, recurrent or attention layers, heads
    "Embedding": "#d6e9f5", "Linear": "#fbe3c4", "softmax": "#f3d3c2", "input": "#eeeeee",
}
_LAYER_FILL = "#cdeee3"
_BOX_W, _BOX_H, _GAP, _MARGIN = 112, 46, 22, 10


@dataclass(frozen=True)
class DiagramBox:
    title: str  # "LSTM ×2", "Embedding"
    detail: str  # the output shape
    fill: str


def diagram_boxes(summary: ModelSummary) -> list[DiagramBox]:
    """The boxes for a summary: input, each (folded) layer except dropout, softmax."""
    rows = [r for r in summary.rows if r.kind != "Dropout"]
    composed = any(r.name.split(" ", 1)[0] in _PARTS for r in rows)  # an encoder-decoder
    boxes = [DiagramBox("source x_1…x_S" if composed else "tokens x_t", "(None, T)",
                        _FILL["input"])]
    i = 0
    while i < len(rows):
        row, count = rows[i], 1
        while i + count < len(rows) and _same_layer(rows[i + count], row):
            count += 1
        boxes.append(DiagramBox(_title(row, count), row.output_shape,
                                _FILL.get(row.kind, _LAYER_FILL)))
        i += count
    width = rows[-1].output_shape.rsplit(", ", 1)[-1].rstrip(")") if rows else "V"
    if summary.arch == "series_forecaster":  # numbers in, the next number out
        linear = [i for i, box in enumerate(boxes) if box.title == "Linear V"]
        names = dict(zip(linear, ("Linear W_in", "Linear w_out"), strict=False))
        boxes = [replace(box, title=names.get(i, box.title)) for i, box in enumerate(boxes)]
        boxes[0] = replace(boxes[0], title="values x_t")
        boxes.append(DiagramBox("x̂_t+1", "one number a step", _FILL["softmax"]))
        return boxes
    if composed:
        boxes.append(DiagramBox("softmax p(y_i)", f"over {width} target tokens",
                                _FILL["softmax"]))
    elif summary.arch in _HEAD_OUTPUTS:  # an encoder task's head: W, as its card writes it
        boxes = [replace(box, title="Linear W") if box.title == "Linear V" else box
                 for box in boxes]
        title, what = _HEAD_OUTPUTS[summary.arch]
        boxes.append(DiagramBox(title, f"{what} over {width}", _FILL["softmax"]))
    else:
        boxes.append(DiagramBox("softmax ŷ_t", f"P(x_t+1) over {width}", _FILL["softmax"]))
    return boxes


# the output box of an encoder task's model: (title, what is predicted)
_HEAD_OUTPUTS = {"sequence_classifier": ("softmax ŷ", "P(label)"),
                 "token_tagger": ("softmax ŷ_t", "P(tag_t)"),
                 "masked_lm": ("softmax ŷ_t", "P(x_t | masked)")}
_PARTS = {"encoder": "Enc.", "decoder": "Dec."}
FUSED_NAMES = {cell.fused for cell in CELLS.values()}  # a recurrent layer's module: "GRU"
_PART_NAMES = {"bridge W_b": "Bridge W_b", "attention score": "Score e_ij",
               "attentional layer W_c": "W_c [c_i; s_i]", "head": "Linear W_o"}


def _part_title(row: LayerRow) -> str | None:
    """The box title of a layer of an encoder-decoder ("encoder gru" -> "Enc. GRU")."""
    part, _, rest = row.name.partition(" ")
    if part not in _PARTS or not rest:
        return None
    if rest.startswith("embedding"):
        return "Embedding x" if part == "encoder" else "Embedding y"
    if row.kind in FUSED_NAMES or rest.startswith("block"):
        return f"{_PARTS[part]} {row.kind.replace('DecoderBlock', 'block')}"
    return _PART_NAMES.get(rest, rest)


def _same_layer(a: LayerRow, b: LayerRow) -> bool:
    return (a.kind, a.output_shape, a.params) == (b.kind, b.output_shape, b.params)


def _title(row: LayerRow, count: int) -> str:
    part = _part_title(row)
    if part is not None:
        return f"{part} ×{count}" if count > 1 else part
    name = {"Linear": "Linear V", "Block": "Block", "LayerNorm": "LayerNorm"}.get(row.kind)
    if row.output_shape.endswith("added"):
        name = "+ Positions P"
    elif row.kind == "Embedding":
        name = "Embedding E"
    name = name or row.kind
    if row.note.startswith("weight shared"):
        name += " (= Eᵀ)"
    return f"{name} ×{count}" if count > 1 else name


class BlockDiagram(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.boxes: list[DiagramBox] = []
        self.message = "No model described yet."
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(_BOX_H + 2 * _MARGIN)

    def set_summary(self, summary: ModelSummary | None, message: str = "") -> None:
        self.boxes = diagram_boxes(summary) if summary is not None else []
        self.message = message
        self.setFixedHeight(self.heightForWidth(self.width()))
        self.updateGeometry()
        self.update()

    def fonts(self) -> tuple[QFont, QFont]:
        """The boxes' title (bold) and shape (smaller) fonts, from the widget's (zoomed)."""
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() - 1.5))
        bold = QFont(self.font())
        bold.setBold(True)
        return bold, small

    def box_size(self) -> tuple[float, float]:
        """A box as large as its widest title or shape needs, never below the drawn size: in
        presentation mode fixed 112 × 46 px boxes cut "Embedding E" to "mbedding"."""
        bold, small = (QFontMetricsF(font) for font in self.fonts())
        widest = max((max(bold.horizontalAdvance(box.title), small.horizontalAdvance(box.detail))
                      for box in self.boxes), default=0.0)
        return (max(_BOX_W, widest + 12), max(_BOX_H, bold.height() + small.height() + 12))

    def _columns(self, width: int | None = None) -> int:
        box_w = self.box_size()[0]
        usable = max(1, (self.width() if width is None else width) - 2 * _MARGIN + _GAP)
        return max(1, int(usable // (box_w + _GAP)))

    def sizeHint(self) -> QSize:
        return QSize(int(len(self.boxes) * (self.box_size()[0] + _GAP)) + 2 * _MARGIN,
                     self.heightForWidth(600))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        lines = max(1, -(-len(self.boxes) // self._columns(width)))
        return int(lines * self.box_size()[1] + (lines - 1) * 24 + 2 * _MARGIN)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # zoomed: larger boxes, maybe more lines
            self.setFixedHeight(self.heightForWidth(self.width()))
            self.updateGeometry()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.setFixedHeight(self.heightForWidth(self.width()))
        super().resizeEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        if not self.boxes:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.message)
            return
        columns = self._columns()
        bold, small = self.fonts()
        box_w, box_h = self.box_size()
        previous: QRectF | None = None
        for index, box in enumerate(self.boxes):
            line, col = divmod(index, columns)
            rect = QRectF(_MARGIN + col * (box_w + _GAP), _MARGIN + line * (box_h + 24),
                          box_w, box_h)
            path = QPainterPath()
            path.addRoundedRect(rect, 6, 6)
            painter.setPen(QPen(QColor("#555555"), 1.2))
            painter.setBrush(Qt.BrushStyle.NoBrush)  # the arrow heads leave a dark brush set
            painter.fillPath(path, QColor(box.fill))
            painter.drawPath(path)
            painter.setPen(QColor("#111111"))
            painter.setFont(bold)
            painter.drawText(rect.adjusted(3, 3, -3, -box_h / 2),
                             Qt.AlignmentFlag.AlignCenter, box.title)
            painter.setFont(small)
            painter.drawText(rect.adjusted(3, box_h / 2, -3, -3),
                             Qt.AlignmentFlag.AlignCenter, box.detail)
            if previous is not None:
                self._arrow(painter, previous, rect)
            previous = rect
        painter.end()

    @staticmethod
    def _arrow(painter: QPainter, start: QRectF, end: QRectF) -> None:
        painter.setPen(QPen(QColor("#333333"), 1.4))
        if abs(start.center().y() - end.center().y()) < 1:  # same line: straight right
            a, b = QPointF(start.right(), start.center().y()), QPointF(end.left(), end.center().y())
        else:  # wrapped: down from the last box of a line, into the first of the next
            a = QPointF(start.center().x(), start.bottom())
            b = QPointF(end.center().x(), end.top())
            mid = (a.y() + b.y()) / 2
            painter.drawLine(a, QPointF(a.x(), mid))
            painter.drawLine(QPointF(a.x(), mid), QPointF(b.x(), mid))
            a = QPointF(b.x(), mid)
        painter.drawLine(a, b)
        painter.setBrush(QColor("#333333"))
        painter.drawPolygon(arrow_head(a, b))
