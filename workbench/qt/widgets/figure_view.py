"""What the drawn figures share: a view that keeps its whole scene in sight (the transformer
block, the unrolled network), and one shape of arrow head, on a scene or with a painter (the
block diagrams too)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

HEAD_LENGTH, HEAD_HALF_WIDTH = 7.0, 3.5  # pixels, whatever the line's length


def arrow_head(start: QPointF, end: QPointF) -> QPolygonF:
    """The triangle at `end` of a line from `start`, pointing along it."""
    direction = end - start
    length = max((direction.x() ** 2 + direction.y() ** 2) ** 0.5, 1e-6)
    unit = QPointF(direction.x() / length, direction.y() / length)
    normal = QPointF(-unit.y(), unit.x())
    back = end - unit * HEAD_LENGTH
    return QPolygonF([end, back + normal * HEAD_HALF_WIDTH, back - normal * HEAD_HALF_WIDTH])


def add_arrow(scene: QGraphicsScene, start: QPointF, end: QPointF, pen: QPen) -> None:
    """A line from `start` to `end` with its head, in the pen's colour."""
    scene.addLine(start.x(), start.y(), end.x(), end.y(), pen)
    scene.addPolygon(arrow_head(start, end), pen, QBrush(pen.color()))


class FigureView(QGraphicsView):
    """A figure drawn on its own scene, antialiased, without scroll bars, scaled to fit."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setObjectName(name)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def fit(self) -> None:
        """The whole drawing in view, a small margin around it."""
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-8, -8, 8, 8),
                           Qt.AspectRatioMode.KeepAspectRatio)

    def arrow(self, start: QPointF, end: QPointF, pen: QPen) -> None:
        add_arrow(self.scene(), start, end, pen)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override: keep it all in view
        super().resizeEvent(event)
        self.fit()
