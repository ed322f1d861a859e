"""Inside a transformer block (the Attention inspector's "Residual stream" tab), from the trace
of the probe: the size ‖x‖₂ of the residual stream at each step through the blocks (the mean
over the probe's tokens and the chosen token's), the chosen token's vector before and after a
LayerNorm with its mean and spread, and the feed-forward layer's hidden units (after the ReLU,
or the GELU of GPT-2 and BERT) for every token. Post-LN normalises the stream after each
sublayer, so its size stays near √d; pre-LN adds to it and lets it grow (SLP3 ch. 9, sec.
9.7.1; Xiong et al. 2020)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QWidget

from workbench.core.trace import LayerTrace
from workbench.qt.widgets.boxes import readable, row, set_title
from workbench.qt.widgets.heatmap import Heatmap
from workbench.qt.widgets.plot_export import PlotExportBar

STREAM_KEYS = ("resid_in", "resid_mid", "resid")  # block input, after attention, after FFN


def stream_stages(layers: list[LayerTrace]) -> tuple[list[str], np.ndarray]:
    """Stage names and ‖x‖₂ per (stage, token): the stream entering layer 0, then after each
    block's attention and after its feed-forward layer."""
    names, norms = [], []
    for index, layer in enumerate(layers):
        keys = STREAM_KEYS if index == 0 else STREAM_KEYS[1:]
        for key in keys:
            names.append({"resid_in": "input", "resid_mid": f"L{index} attention",
                          "resid": f"L{index} FFN"}[key])
            norms.append(np.linalg.norm(np.asarray(layer.values[key], np.float64), axis=-1))
    return names, np.array(norms)


def layer_norm_stats(vector: np.ndarray) -> str:
    return f"mean {vector.mean():+.3f}, std {vector.std():.3f}"


class ResidualView(QWidget):
    def __init__(self, on_error=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layers: list[LayerTrace] = []
        self.tokens: list[str] = []
        self.token_box, self.norm_box = QComboBox(), QComboBox()
        self.token_box.setObjectName("residual-token")
        self.norm_box.setObjectName("residual-norm")
        for box in (self.token_box, self.norm_box):
            box.currentIndexChanged.connect(self._draw)
        self.stream = pg.PlotWidget(background="w")
        readable(self.stream)
        self.stream.setLabel("left", "‖x‖₂")
        self.stream.addLegend(offset=(-5, 5))
        self.norm_plot = pg.PlotWidget(background="w")
        readable(self.norm_plot)
        self.norm_plot.setLabel("bottom", "dimension")
        self.norm_plot.addLegend(offset=(-5, 5))
        self.ffn = Heatmap("", "token", "hidden unit", name="ffn_hidden", on_error=on_error)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        # the stream and the LayerNorm side by side, the FFN's units under both
        layout = QGridLayout(self)
        layout.addWidget(row(QLabel("token"), self.token_box, QLabel("LayerNorm"),
                             self.norm_box, QWidget()), 0, 0, 1, 2)
        layout.addWidget(self.stream, 1, 0)
        layout.addWidget(self.norm_plot, 1, 1)
        layout.addWidget(PlotExportBar(self.stream, self._stream_data, "residual_stream",
                                       on_error), 2, 0)
        layout.addWidget(self.summary, 2, 1)
        layout.addWidget(self.ffn, 3, 0, 1, 2)
        layout.setRowStretch(1, 1)
        layout.setRowStretch(3, 1)

    def set_layers(self, layers: list[LayerTrace], tokens: list[str]) -> None:
        """The transformer layers of a trace (those that record the stream)."""
        self.layers = [layer for layer in layers if "resid_in" in layer.values]
        self.tokens = list(tokens)
        self._refill(self.token_box, [f"{i}: {t!r}" for i, t in enumerate(tokens)], last=True)
        self._refill(self.norm_box, [f"layer {i} · LN{n} ({'attention' if n == 1 else 'FFN'})"
                                     for i in range(len(self.layers)) for n in (1, 2)])
        self._draw()

    @staticmethod
    def _refill(box: QComboBox, items: list[str], last: bool = False) -> None:
        if [box.itemText(i) for i in range(box.count())] == items:
            return
        keep = box.currentIndex()
        box.blockSignals(True)
        box.clear()
        box.addItems(items)
        box.setCurrentIndex(min(keep, len(items) - 1) if keep >= 0 and not last
                            else len(items) - 1)
        box.blockSignals(False)

    def _draw(self) -> None:
        if not self.layers:
            return
        token = max(self.token_box.currentIndex(), 0)
        names, norms = stream_stages(self.layers)
        x = np.arange(len(names))
        self.stream.clear()
        self.stream.plot(x, norms.mean(axis=1), pen=pg.mkPen("#0072B2", width=3), symbol="o",
                         symbolSize=6, name="mean over the probe")
        self.stream.plot(x, norms[:, token], pen=pg.mkPen(
            "#D55E00", width=2, style=Qt.PenStyle.DashLine), name=f"token {token}")
        self.stream.getAxis("bottom").setTicks([list(enumerate(names))])
        self.stream.setXRange(-0.5, len(names) - 0.5, padding=0)  # room for the end labels
        set_title(self.stream, "Size of the residual stream through the blocks")
        choice = max(self.norm_box.currentIndex(), 0)
        layer, norm = self.layers[choice // 2], 1 + choice % 2
        before = np.asarray(layer.values[f"ln{norm}_in"], np.float64)[token]
        after = np.asarray(layer.values[f"ln{norm}_out"], np.float64)[token]
        dims = np.arange(len(before))
        self.norm_plot.clear()
        self.norm_plot.plot(dims, before, pen=pg.mkPen("#999999", width=2), name="before")
        self.norm_plot.plot(dims, after, pen=pg.mkPen("#009E73", width=2), name="after")
        set_title(self.norm_plot, f"Token {token} at {layer.name}, LN{norm}")
        self.summary.setText(
            f"LayerNorm of token {token} ({self.tokens[token]!r}) at {layer.name}: before "
            f"{layer_norm_stats(before)}; after (x − μ)/σ, then γ and β: "
            f"{layer_norm_stats(after)}.")
        hidden = np.asarray(layer.values["ffn_hidden"], np.float64)  # (T, d_ff)
        zero = float((hidden <= 0).mean()) * 100
        if "GELU" in layer.convention:  # GPT-2 and BERT: x·Φ(x), small negatives pass
            title = (f"{layer.name}: FFN hidden units GELU(x W₁ + b₁), {zero:.0f} % at or "
                     "below zero")
        else:
            title = (f"{layer.name}: FFN hidden units max(0, x W₁ + b₁), {zero:.0f} % zero "
                     "(the ReLU)")
        self.ffn.set_data(hidden.T, [str(u) for u in range(hidden.shape[1])], self.tokens,
                          title=title)

    def _stream_data(self) -> tuple[list[str], list[list]]:
        names, norms = stream_stages(self.layers)
        return (["stage"] + [f"token {i}" for i in range(norms.shape[1])],
                [names] + [list(map(float, norms[:, i])) for i in range(norms.shape[1])])
