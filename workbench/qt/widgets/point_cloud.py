"""A graphics item that draws very many coloured points fast, for 100k-word maps.

ScatterPlotItem paints one pixmap fragment per point (~60 ms a frame for 100k points here), and
QPainter.drawPoints with a wide pen is slower still. This item instead maps all points to device
pixels with numpy at paint time, stamps a small square per point into one RGBA buffer and draws
that buffer as a single image: about 10 ms a frame at 100k points, so panning stays smooth.
Later points overwrite earlier ones, so callers put the points to keep on top last.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage


class PointCloudItem(pg.GraphicsObject):
    def __init__(self, x: np.ndarray, y: np.ndarray, colours: np.ndarray,
                 radius: int = 1) -> None:
        """colours: (N, 4) uint8 RGBA, one per point; each point is a (2r+1)² pixel square."""
        super().__init__()
        self.x = np.asarray(x, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.count = len(self.x)
        rgba = np.asarray(colours, dtype=np.uint32)
        alpha = rgba[:, 3]
        # premultiplied ARGB32 (QImage.Format_ARGB32_Premultiplied, little-endian words)
        self.argb = ((alpha << 24) | ((rgba[:, 0] * alpha // 255) << 16)
                     | ((rgba[:, 1] * alpha // 255) << 8) | (rgba[:, 2] * alpha // 255))
        self.radius = radius
        if self.count:
            self._bounds = QRectF(self.x.min(), self.y.min(), float(np.ptp(self.x)) or 1e-9,
                                  float(np.ptp(self.y)) or 1e-9)
        else:
            self._bounds = QRectF()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def dataBounds(self, axis: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803
        """The view box's auto-range asks items for their extent through this."""
        if not self.count:
            return (None, None)
        values = self.x if axis == 0 else self.y
        return (float(values.min()), float(values.max()))

    def paint(self, painter, option=None, widget=None) -> None:
        # The world transform maps data to the painted widget's pixels; the device may be a
        # larger surface (the window's backing store, a grab), offset by Qt on its own.
        surface = widget if widget is not None else painter.device()
        width, height = surface.width(), surface.height()
        if not self.count or width <= 0 or height <= 0:
            return
        t = painter.transform()
        px = np.rint(self.x * t.m11() + self.y * t.m21() + t.dx()).astype(np.int64)
        py = np.rint(self.x * t.m12() + self.y * t.m22() + t.dy()).astype(np.int64)
        r = self.radius
        inside = (px >= r) & (px < width - r) & (py >= r) & (py < height - r)
        px, py, argb = px[inside], py[inside], self.argb[inside]
        buffer = np.zeros(height * width, dtype=np.uint32)
        flat = py * width + px
        for offset in {dy * width + dx for dy in range(-r, r + 1) for dx in range(-r, r + 1)}:
            buffer[flat + offset] = argb
        image = QImage(buffer.data, width, height, 4 * width,
                       QImage.Format.Format_ARGB32_Premultiplied)
        painter.save()
        painter.resetTransform()
        painter.drawImage(0, 0, image)
        painter.restore()
