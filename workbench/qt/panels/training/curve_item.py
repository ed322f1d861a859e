"""A lean polyline item for the live curves.

pyqtgraph's PlotCurveItem recomputes its bounds, pixel padding and path in Python at paint
time, and with twelve curves redrawn at every update that bookkeeping cost more than drawing
them. The training curves are already decimated to a few hundred points before they get here,
so this item does its work once, in `setData`. It builds the path and the bounds, and `paint`
only draws the path with a cosmetic pen. It follows its plot's log-y switch as PlotDataItem does:
the plot calls `setLogMode`, and y values are drawn as log10.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainterPath, QPen

EMPTY = np.empty(0)


class CurveItem(pg.GraphicsObject):
    def __init__(self, pen: QPen) -> None:
        super().__init__()
        self._pen = QPen(pen)
        self._pen.setCosmetic(True)
        self._x, self._y = EMPTY, EMPTY
        self._log_y = False
        self._path = QPainterPath()
        self._bounds = QRectF()
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

    def _rebuild(self) -> None:
        self.prepareGeometryChange()
        self._padded = None
        x, y = self._x, self._y
        if self._log_y:
            with np.errstate(divide="ignore", invalid="ignore"):
                y = np.log10(y)
        finite = np.isfinite(x) & np.isfinite(y)
        if finite.sum() < 2:
            self._path, self._bounds = QPainterPath(), QRectF()
        else:
            # a NaN or infinite loss is a gap in the line, not a jump to the edge
            connect = "all" if finite.all() else "finite"
            self._path = pg.arrayToQPath(x, y, connect=connect)
            xs, ys = x[finite], y[finite]
            self._bounds = QRectF(xs.min(), ys.min(), xs.max() - xs.min(), ys.max() - ys.min())
        self._data_bounds = ((self._bounds.left(), self._bounds.right()),
                             (self._bounds.top(), self._bounds.bottom()))
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803
        """For the view's own auto-range (offered in its context menu)."""
        if self._bounds.isNull():
            return None, None
        return self._data_bounds[ax]

    def viewTransformChanged(self) -> None:  # noqa: N802 (pyqtgraph calls it on zoom/resize)
        self.prepareGeometryChange()
        self._padded = None

    def boundingRect(self) -> QRectF:  # noqa: N802
        # the pen is a few pixels wide: pad by that much in data units so its edges repaint.
        # Qt asks for this rect many times per frame, so it is kept until data or view change.
        if self._padded is None:
            if self._bounds.isNull():
                self._padded = QRectF()
            else:
                px, py = self.pixelWidth(), self.pixelHeight()
                pad = self._pen.widthF() + 1
                self._padded = self._bounds.adjusted(-pad * px, -pad * py, pad * px, pad * py)
        return self._padded

    def paint(self, painter, *args) -> None:
        painter.setPen(self._pen)
        painter.drawPath(self._path)
