"""The recurrent network unrolled in time with the probe's own values (SLP3 figs. 9.2-9.5; the
course's "computational graph across time"): one cell per time step, x_t entering from below
through W, h_{t-1} from the left through U, the same weights at every step; each cell shows the
selected unit's value at that step, coloured from its lowest (dark) to its highest (yellow) as
the Gates view's text is. The Gates panel's Unrolled tab; up to `SHOWN` steps from the start of
the probe (the heatmap has them all)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import QWidget

from workbench.qt.widgets.figure_view import FigureView

SHOWN = 12
BOX, GAP = 54.0, 34.0


class UnrolledGraph(FigureView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("unrolled-graph", parent)
        self.values: list[float] = []  # the values drawn (a test or a reader can check them)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(600, 200)

    def show_steps(self, tokens: list[str], series: np.ndarray, label: str) -> None:
        scene = self.scene()
        scene.clear()
        steps = min(len(series), SHOWN)
        self.values = [float(v) for v in series[:steps]]
        if not steps:
            return
        lo, hi = float(np.min(series)), float(np.max(series))
        cmap = pg.colormap.get("viridis")
        font, pen = QFont("DejaVu Sans", 8), QPen(QColor("#444444"), 1.3)
        for t in range(steps):
            x = t * (BOX + GAP)
            cell = QRectF(x, 40, BOX, BOX)
            colour = cmap.map((self.values[t] - lo) / (hi - lo) if hi > lo else 0.5,
                              mode="qcolor")
            scene.addRect(cell, pen, QBrush(colour))
            value = scene.addText(f"{self.values[t]:.2f}", font)
            value.setDefaultTextColor(QColor("white" if colour.lightness() < 128 else "black"))
            value.setPos(cell.center().x() - value.boundingRect().width() / 2,
                         cell.center().y() - value.boundingRect().height() / 2)
            token = tokens[t].replace("\n", "↵") if t < len(tokens) else ""
            shown = scene.addText(repr(token) if token.strip() == "" else token, font)
            shown.setPos(cell.center().x() - shown.boundingRect().width() / 2, 128)
            self.arrow(QPointF(cell.center().x(), 128), QPointF(cell.center().x(),
                                                                 cell.bottom()), pen)
            if t == 0:
                w = scene.addText("W", font)
                w.setPos(cell.center().x() + 3, 100)
            if t:
                self.arrow(QPointF(x - GAP, cell.center().y()), QPointF(x, cell.center().y()),
                            pen)
                if t == 1:
                    u = scene.addText("U", font)
                    u.setPos(x - GAP + 8, cell.center().y() - 20)
        if len(series) > steps:
            more = scene.addText(f"… {len(series) - steps} more steps", font)
            more.setPos(steps * (BOX + GAP), 58)
        title = scene.addText(f"{label}: the network unrolled, the same W and U at every step",
                              QFont("DejaVu Sans", 9, QFont.Weight.Bold))
        title.setPos(0, 0)
        self.fit()
