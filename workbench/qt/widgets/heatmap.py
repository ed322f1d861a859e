"""A heatmap with token labels, a colour bar and export (PNG, SVG, CSV, .npy).

Rows and columns carry labels (tokens on the time axis, units or query tokens on the other).
Colours use a perceptually uniform, colour-blind-safe map (viridis by default, or cividis).
NaN cells (a causal mask's future positions) are drawn transparent over a hatched grey
background, so the mask is visible as its own pattern rather than as a colour of the scale.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.qt.widgets.boxes import readable
from workbench.qt.widgets.plot_export import ask_export, export_csv, export_png, export_svg
from workbench.qt.widgets.token_axis import TokenAxis

MAX_LABELS = 48  # more tick labels than this would overlap; show every n-th instead


def ticks(labels: Sequence[str], limit: int = MAX_LABELS) -> list[tuple[float, str]]:
    """Tick positions at cell centres, thinned to at most `limit` labels."""
    every = max(1, int(np.ceil(len(labels) / limit)))
    return [(i + 0.5, visible_token(text)) for i, text in enumerate(labels) if i % every == 0]


def visible_token(text: str) -> str:
    """Whitespace tokens shown as symbols so a label is never blank."""
    return (text.replace("\n", "↵").replace(" ", "·").replace("\t", "→")) or "∅"


class Heatmap(QWidget):
    """Image of a 2-D array, rows top to bottom, with labelled axes and a colour bar.

    `set_data(values, row_labels, col_labels)`; `clicked(row, col)` when a cell is clicked.
    """

    clicked = Signal(int, int)

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "",
                 cmap: str = "viridis", name: str = "heatmap",
                 on_error: Callable[[str], None] | None = None, export: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name, self.on_error = name, on_error
        self.values = np.zeros((0, 0))
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        # every token labelled, smaller or upright when cells are narrow (token_axis.py)
        self.plot = self.view.addPlot(title=title, axisItems={
            "left": TokenAxis("left"), "bottom": TokenAxis("bottom")})
        self.plot.invertY(True)
        self.plot.setMenuEnabled(False)
        self.plot.setLabel("bottom", x_label)
        self.plot.setLabel("left", y_label)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTextPen("k")
            self.plot.getAxis(side).setPen("k")
        self.plot.getViewBox().setBackgroundColor(QColor(235, 235, 235))
        # drawn under the image: shows through NaN (masked) cells as grey hatching
        self.mask_backdrop = QGraphicsRectItem(0, 0, 0, 0)
        self.mask_backdrop.setBrush(QBrush(QColor(120, 120, 120), Qt.BrushStyle.BDiagPattern))
        self.mask_backdrop.setPen(QPen(Qt.PenStyle.NoPen))
        self.mask_backdrop.setZValue(-10)
        self.plot.addItem(self.mask_backdrop)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colorbar = pg.ColorBarItem(colorMap=pg.colormap.get(cmap), interactive=False,
                                        width=12)
        self.colorbar.setImageItem(self.image, insert_in=self.plot)
        self.image.mouseClickEvent = self._on_click
        self.image.hoverEvent = self._on_hover
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.plot.setTitle(title or "Probe a model to see this view.")
        readable(self.view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        self.buttons: dict[str, QPushButton] = {}
        if export:
            row = QHBoxLayout()
            row.addStretch(1)
            for kind in ("PNG", "SVG", "CSV", "NPY"):
                button = QPushButton(f"{kind}…")
                button.setToolTip(f"Export this heatmap as {kind}")
                button.clicked.connect(lambda _=False, k=kind: self.ask_and_export(k))
                row.addWidget(button)
                self.buttons[kind] = button
            layout.addLayout(row)

    def set_colormap(self, cmap: str) -> None:
        self.colorbar.setColorMap(pg.colormap.get(cmap))

    def set_data(self, values: np.ndarray, row_labels: Sequence[str] = (),
                 col_labels: Sequence[str] = (), levels: tuple[float, float] | None = None,
                 title: str | None = None) -> None:
        values = np.asarray(values, dtype=np.float32)
        if values.ndim != 2:
            raise ValueError(f"A heatmap needs a 2-D array (got shape {values.shape}).")
        self.values = values
        self.row_labels = list(row_labels) or [str(i) for i in range(values.shape[0])]
        self.col_labels = list(col_labels) or [str(i) for i in range(values.shape[1])]
        finite = values[np.isfinite(values)]
        if levels is None:
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            levels = (lo, hi if hi > lo else lo + 1e-6)
        self.image.setImage(values, levels=levels, autoLevels=False)
        self.image.setRect(QRectF(0, 0, values.shape[1], values.shape[0]))
        self.colorbar.setLevels(levels)
        self.mask_backdrop.setRect(QRectF(0, 0, values.shape[1], values.shape[0]))
        self.plot.getAxis("bottom").setTicks([ticks(self.col_labels, len(self.col_labels))])
        self._label_rows()
        self.plot.setRange(xRange=(0, values.shape[1]), yRange=(0, values.shape[0]), padding=0)
        if title is not None:
            self.plot.setTitle(title)

    def clear(self, title: str = "") -> None:
        """Nothing shown (the data it showed belongs to a model or run that is gone)."""
        self.values = np.zeros((0, 0))
        self.row_labels, self.col_labels = [], []
        self.image.clear()
        self.mask_backdrop.setRect(QRectF(0, 0, 0, 0))
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTicks(None)
        self.plot.setTitle(title or "Probe a model to see this view.")

    def _label_rows(self) -> None:
        """Every row labelled: the axis shrinks the text to the row height (token_axis.py)."""
        self.plot.getAxis("left").setTicks([ticks(self.row_labels, len(self.row_labels))])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self.row_labels:
            self._label_rows()

    def image_values(self) -> np.ndarray:
        """What the image item holds (tests compare it with the trace)."""
        return np.asarray(self.image.image)

    def cell_text(self, row: int, col: int) -> str:
        """What hovering a cell says: its row and column tokens and its value."""
        if not (0 <= row < self.values.shape[0] and 0 <= col < self.values.shape[1]):
            return ""
        return (f"{visible_token(self.row_labels[row])} · {visible_token(self.col_labels[col])}"
                f": {float(self.values[row, col]):.4g}")

    def _on_hover(self, event) -> None:
        if event.isExit():
            self.view.setToolTip("")
            return
        pos = event.pos()
        self.view.setToolTip(self.cell_text(int(pos.y()), int(pos.x())))

    def _on_click(self, event) -> None:
        pos = event.pos()
        row, col = int(pos.y()), int(pos.x())
        if 0 <= row < self.values.shape[0] and 0 <= col < self.values.shape[1]:
            self.clicked.emit(row, col)
            event.accept()

    # --- export -------------------------------------------------------------------------------

    def export_to(self, kind: str, path: str | Path) -> Path:
        path = Path(path)
        if kind == "PNG":
            return export_png(self.view, path)
        if kind == "SVG":
            return export_svg(self.view, path)
        if kind == "NPY":
            np.save(path, self.values)
            return path
        header = ["row"] + [visible_token(c) for c in self.col_labels]
        columns = [self.row_labels] + [self.values[:, j].tolist()
                                       for j in range(self.values.shape[1])]
        return export_csv(path, header, columns)

    def ask_and_export(self, kind: str) -> None:
        ask_export(self, kind, self.name, "", self.export_to, self.on_error)
