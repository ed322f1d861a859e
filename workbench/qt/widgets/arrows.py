"""Arrows of the drawn figures (the transformer block, the unrolled network, the block
diagrams): one shape of arrow head, on a scene or with a painter."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QBrush, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsScene

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
