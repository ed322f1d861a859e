"""One decoding step of a sequence-to-sequence model: where it looked and what it considered.

Three small plots side by side: the attention weights α_ij over the input tokens (bars), the
context vector c_i = Σ_j α_ij h_j (one cell per dimension), and the top next tokens with their
probabilities (bars). Used by the Alignment panel for the output step clicked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from workbench.qt.widgets.heatmap import ticks, visible_token

BAR = "#0072B2"
CHOSEN = "#D55E00"


def _bar_plot(title: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setTitle(title, size="9pt")
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(False, False)
    plot.setMinimumHeight(140)
    return plot


class StepView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel("Click an output row of the matrix to see that decoding step.")
        self.caption.setWordWrap(True)
        self.weights = _bar_plot("α<sub>i</sub> over the input")
        self.context = pg.PlotWidget(background="w")
        self.context.setTitle("context c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> h<sub>j</sub>",
                              size="9pt")
        self.context.setMenuEnabled(False)
        self.context.hideAxis("left")
        self.context_image = pg.ImageItem(axisOrder="row-major")
        self.context_image.setColorMap(pg.colormap.get("CET-D1"))
        self.context.addItem(self.context_image)
        self.top = _bar_plot("next token p(y<sub>i</sub> | y<sub>&lt;i</sub>, x)")
        plots = QHBoxLayout()
        plots.addWidget(self.weights, 3)
        plots.addWidget(self.context, 2)
        plots.addWidget(self.top, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addLayout(plots, 1)
        self.shown_weights = np.zeros(0)

    def clear(self, message: str) -> None:
        for plot in (self.weights, self.top):
            plot.clear()
            plot.getAxis("bottom").setTicks(None)  # the last step's tokens and guesses go too
        self.context_image.clear()
        self.caption.setText(message)
        self.shown_weights = np.zeros(0)

    def show_step(self, step: int, output: str, source: Sequence[str], weights: np.ndarray,
                  context: np.ndarray | None, top: Sequence[tuple[str, float]]) -> None:
        """Output step `step` (0-based) that produced `output`."""
        weights = np.asarray(weights, dtype=float)
        self.shown_weights = weights
        text = f"Output step i = {step + 1}: “{visible_token(output)}”."
        if len(weights):
            looked = visible_token(source[int(weights.argmax())])
            text += f" It looked most at input “{looked}” (α = {weights.max():.2f})."
        self.caption.setText(text)
        self.weights.clear()
        if len(weights):
            self.weights.addItem(pg.BarGraphItem(x=np.arange(len(weights)), height=weights,
                                                 width=0.8, brush=BAR))
            self.weights.getAxis("bottom").setTicks([[(x - 0.5, label)
                                                      for x, label in ticks(source)]])
            self.weights.setYRange(0, 1, padding=0.02)
            self.weights.setXRange(-0.6, len(weights) - 0.4, padding=0)
        if context is not None and len(context):
            row = np.asarray(context, dtype=np.float32)[None, :]
            bound = float(np.abs(row).max()) or 1.0
            self.context_image.setImage(row, levels=(-bound, bound))
            self.context.setRange(xRange=(0, row.shape[1]), yRange=(0, 1), padding=0)
        else:
            self.context_image.clear()
        self.top.clear()
        if top:
            probs = [p for _, p in top]
            brushes = [CHOSEN if text == output else BAR for text, _ in top]
            self.top.addItem(pg.BarGraphItem(x=np.arange(len(top)), height=probs, width=0.8,
                                             brushes=brushes))
            self.top.getAxis("bottom").setTicks([[(i, visible_token(t))
                                                  for i, (t, _) in enumerate(top)]])
            self.top.setYRange(0, 1, padding=0.02)
