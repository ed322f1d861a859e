"""A lean polyline item for the live curves.

pyqtgraph's PlotCurveItem recomputes its bounds, pixel padding and path in Python at paint
time, and with twelve curves redrawn at every update that bookkeeping cost more than drawing
them. The training curves are already decimated to a few hundred points before they get here,
so this item does its work once, in `setData`. It builds the path and the bounds, and `paint`
only draws the path with a cosmetic pen. It follows its plot's log-y switch as PlotDataItem does:
the plot calls `setLogMode`, and y values are drawn as log10.

With `dot_size` it also draws a round dot of that many pixels at each point (the validation
points, a task's result). A PlotDataItem with symbols is three items, and its scatter tests
every point at every paint; with a session's runs all shown, those scatters were the largest
share of a frame (47 runs of a 12-minute soak: 141 scatters, 40% of the paint time). The dots
are one `drawPoints` with a round cosmetic pen, so they keep their size in pixels at any zoom.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainterPath, QPen, QPolygonF

EMPTY = np.empty(0)


class CurveItem(pg.GraphicsObject):
    def __init__(self, pen: QPen, dot_size: float = 0.0) -> None:
        super().__init__()
        self._pen = QPen(pen)
        self._pen.setCosmetic(True)
        self._dot_pen = QPen(self._pen.color(), dot_size)
        self._dot_pen.setCosmetic(True)
        self._dot_pen.setCapStyle(Qt.PenCapStyle.RoundCap)  # a round point, not a square
        self.dot_size = dot_size
        self._x, self._y = EMPTY, EMPTY
        self._log_y = False
        self._path = QPainterPath()
        self._dots = QPolygonF()
        self._bounds: QRectF | None = None  # None: no finite point
        self._padded: QRectF | None = None

    def setData(self, x: np.ndarray, y: np.ndarray) -> None:  # noqa: N802 (pyqtgraph's name)
        self._x, self._y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        self._rebuild()

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802
        """The data as given (not log-mapped), like PlotCurveItem.getData."""
        return self._x, self._y

    def setLogMode(self, x_mode: bool, y_mode: bool) -> None:  # noqa: N802 (called by PlotItem)
        if y_mode != self._log_y:
            self._log_y = y_mode
            self._rebuild()

    def zoom_pen(self) -> QPen:
        """Its pen, for zoom.py (which sets it wider in presentation mode)."""
        return self._pen

    def setPen(self, pen: QPen) -> None:  # noqa: N802
        self._pen = QPen(pen)
        self._pen.setCosmetic(True)
        self.update()

    def set_dot_size(self, size: float) -> None:
        """Dots of `size` pixels (zoom.py scales them in presentation mode)."""
        self.dot_size = size
        self._dot_pen.setWidthF(size)
        self.viewTransformChanged()  # the padding grows with the dots
        self.update()

    def _rebuild(self) -> None:
        self.prepareGeometryChange()
        self._padded = None
        x, y = self._x, self._y
        if self._log_y:
            with np.errstate(divide="ignore", invalid="ignore"):
                y = np.log10(y)
        finite = np.isfinite(x) & np.isfinite(y)
        xs, ys = x[finite], y[finite]
        # a NaN or infinite loss is a gap in the line, not a jump to the edge
        self._path = (pg.arrayToQPath(x, y, connect="all" if finite.all() else "finite")
                      if len(xs) >= 2 else QPainterPath())
        self._dots = (pg.functions.arrayToQPolygonF(xs, ys) if self.dot_size and len(xs)
                      else QPolygonF())
        drawn = len(xs) >= (1 if self.dot_size else 2)  # one dot shows; one point of line not
        self._bounds = (QRectF(xs.min(), ys.min(), xs.max() - xs.min(), ys.max() - ys.min())
                        if drawn else None)
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803
        """For the view's own auto-range (offered in its context menu)."""
        if self._bounds is None:
            return None, None
        bounds = self._bounds
        return (bounds.left(), bounds.right()) if ax == 0 else (bounds.top(), bounds.bottom())

    def viewTransformChanged(self) -> None:  # noqa: N802 (pyqtgraph calls it on zoom/resize)
        self.prepareGeometryChange()
        self._padded = None

    def boundingRect(self) -> QRectF:  # noqa: N802
        # the pen is a few pixels wide: pad by that much in data units so its edges repaint.
        # Qt asks for this rect many times per frame, so it is kept until data or view change.
        if self._padded is None:
            if self._bounds is None:
                self._padded = QRectF()
            else:
                px, py = self.pixelWidth(), self.pixelHeight()
                pad = max(self._pen.widthF(), self.dot_size / 2) + 1
                self._padded = self._bounds.adjusted(-pad * px, -pad * py, pad * px, pad * py)
        return self._padded

    def paint(self, painter, *args) -> None:
        painter.setPen(self._pen)
        painter.drawPath(self._path)
        if self.dot_size:
            painter.setPen(self._dot_pen)
            painter.drawPoints(self._dots)
