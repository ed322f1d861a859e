"""A graphics item that draws many points with one QPainter.drawPoints call.

ScatterPlotItem draws one pixmap fragment per point, about 0.6 µs each: 100k points cost ~70 ms
a frame, too slow to pan smoothly. Points drawn with a cosmetic square pen (a fixed size in
pixels whatever the zoom) from one QPolygonF share a numpy buffer and repaint in a few ms.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPen


class PointCloudItem(pg.GraphicsObject):
    def __init__(self, x: np.ndarray, y: np.ndarray, colour: QColor, size: float = 4.0) -> None:
        super().__init__()
        self.count = len(x)
        self.polygon = pg.functions.create_qpolygonf(self.count)
        buffer = pg.functions.ndarray_from_qpolygonf(self.polygon)  # (N, 2) view, no copy
        buffer[:, 0], buffer[:, 1] = x, y
        self.pen = QPen(colour)
        self.pen.setWidthF(size)
        self.pen.setCosmetic(True)
        self.pen.setCapStyle(Qt.PenCapStyle.SquareCap)
        if self.count:
            self._bounds = QRectF(float(np.min(x)), float(np.min(y)),
                                  float(np.ptp(x)) or 1e-9, float(np.ptp(y)) or 1e-9)
        else:
            self._bounds = QRectF()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def dataBounds(self, axis: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803
        """pyqtgraph's auto-range asks this (the view box only knows its items this way)."""
        if not self.count:
            return (None, None)
        rect = self._bounds
        return (rect.left(), rect.right()) if axis == 0 else (rect.top(), rect.bottom())

    def paint(self, painter, *args) -> None:
        painter.setPen(self.pen)
        painter.drawPoints(self.polygon)
