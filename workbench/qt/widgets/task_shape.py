"""The chosen task's shape in the course's taxonomy (seed 001's one-to-many, many-to-one and
many-to-many sequences; Karpathy's figure): the tokens read at the bottom, the model's steps in
the middle (each passing its state to the next), and what is predicted on top. A language model
predicts each next token; a classifier one label at the end; a tagger a tag a token; a masked
LM the hidden tokens only; an encoder-decoder reads the whole source first, then writes a target
of its own length. Drawn under the task picker from the task config's `io_shape`."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

CELL, STEP = 26.0, 40.0

# shape -> (inputs, outputs by column ("" = none), a caption, encoder columns)
SHAPES = {
    "next": (["x₁", "x₂", "x₃", "x₄"], ["x₂", "x₃", "x₄", "x₅"],
             "many to many, one step ahead", 0),
    "one": (["x₁", "x₂", "x₃", "x₄"], ["", "", "", "label"], "many to one", 0),
    "aligned": (["x₁", "x₂", "x₃", "x₄"], ["t₁", "t₂", "t₃", "t₄"],
                "many to many, a tag a token", 0),
    "masked": (["x₁", "[M]", "x₃", "[M]"], ["", "x₂", "", "x₄"],
               "many to many, the hidden tokens", 0),
    "pairs": (["x₁", "x₂", "x₃", "<bos>", "y₁", "y₂"], ["", "", "", "y₁", "y₂", "<eos>"],
              "encoder-decoder: read all, then write", 3),
}


class TaskShapeFigure(QGraphicsView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setFixedHeight(118)
        self.setObjectName("task-shape")
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.shape = ""

    def show_shape(self, shape: str) -> None:
        scene = self.scene()
        scene.clear()
        self.shape = shape
        self.setVisible(shape in SHAPES)
        if shape not in SHAPES:
            return
        inputs, outputs, caption, encoder = SHAPES[shape]
        font, pen = QFont("DejaVu Sans", 8), QPen(QColor("#555555"), 1.2)
        for column, (read, written) in enumerate(zip(inputs, outputs, strict=True)):
            x = column * STEP + (12.0 if encoder and column >= encoder else 0.0)
            cell = QRectF(x, 30, CELL, CELL)
            fill = "#dbe9f6" if encoder and column < encoder else "#d9f0e3"
            scene.addRect(cell, pen, QBrush(QColor(fill)))
            self._label(read, cell.center().x(), 62, font)
            scene.addLine(cell.center().x(), 60, cell.center().x(), cell.bottom(), pen)
            if written:
                scene.addLine(cell.center().x(), cell.top(), cell.center().x(), 18, pen)
                self._label(written, cell.center().x(), 2, font, bold=True)
            if column:
                scene.addLine(cell.left() - STEP + CELL + (12.0 if encoder and column ==
                                                           encoder else 0.0),
                              cell.center().y(), cell.left(), cell.center().y(), pen)
        title = scene.addText(caption, font)
        title.setPos(0, 78)
        self.fitInView(scene.itemsBoundingRect().adjusted(-6, -4, 6, 4),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _label(self, text: str, x: float, y: float, font: QFont, bold: bool = False) -> None:
        item = self.scene().addText(text, QFont(font.family(), font.pointSize(),
                                                QFont.Weight.Bold if bold else
                                                QFont.Weight.Normal))
        item.setPos(x - item.boundingRect().width() / 2, y - 4)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override: fitted to any width, so ask
        return QSize(160, 118)   # for little (the form column keeps its own width)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(120, 118)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override: keep it all in view
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-6, -4, 6, 4),
                           Qt.AspectRatioMode.KeepAspectRatio)
