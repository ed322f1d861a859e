"""Attention inspector: where each head of a transformer looks along the probe.

Per layer and head, the attention weights α (or the pre-softmax scores) as a query × key
heatmap with the causal mask hatched; a layers × heads grid of thumbnails (click one to open
it); a line view linking each token to the tokens it attends to; per-head statistics over the
snapshots seen during training; the model's own positional encoding (positions × dimensions).

A sequence-to-sequence model's probe (source → its output) offers three kinds of attention
per layer and head: the encoder's self-attention (source × source, no mask), the decoder's
masked self-attention (output × output, causal) and the cross-attention (output × source);
an RNN encoder-decoder has one "head": its decoder's α.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QTabWidget

from workbench.core.trace import Trace
from workbench.core.worked.attention import attention_computation
from workbench.qt.inspector import InspectorPanel
from workbench.qt.panels.attention.positions import position_tables, rotary_note
from workbench.qt.panels.attention.residual_view import ResidualView
from workbench.qt.panels.attention.views import AttentionView, attention_views, finite, masked
from workbench.qt.widgets.boxes import column, readable, series_colour
from workbench.qt.widgets.cell_equations import attention_card, card_html, wrap
from workbench.qt.widgets.heatmap import Heatmap, ticks
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.probe_bar import DEFAULT_PROBE, model_key
from workbench.qt.widgets.worked_view import WorkedView

if TYPE_CHECKING:  # (core.trace.seq2seq is outside the Qt room's allow-list)
    from workbench.core.trace.seq2seq import Seq2seqTrace

ENCODER_TASKS = ("masked_lm", "classify", "tag")  # their attention reads both ways by design
STATISTICS = ("entropy", "mean distance", "previous token", "first token")
LINE_BUCKETS = (0.05, 0.15, 0.3, 0.5, 0.75)  # weights drawn thicker and darker per bucket


class AttentionPanel(InspectorPanel):
    name: ClassVar[str] = "attention"
    title: ClassVar[str] = "Attention"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.history: list[tuple[int, dict[str, np.ndarray]]] = []
        self._history_model: tuple[str, str] = ("", "")  # the model the history is of
        self.layer_box = self.add_choice("Layer")
        self.head_box = self.add_choice("Head")
        self.what_box = self.add_choice("Show", ("weights α", "scores QKᵀ/√d_k"))
        self.stat_box = QComboBox()
        self.stat_box.addItems(STATISTICS)
        for box in (self.layer_box, self.head_box, self.what_box):
            box.currentIndexChanged.connect(self._draw)
        self.stat_box.currentIndexChanged.connect(self._draw_history)
        self.heatmap = Heatmap("", "key (attended token)", "query token", name="attention",
                               on_error=controller.report_error)
        self.grid = readable(pg.GraphicsLayoutWidget())
        self.grid.setBackground("w")
        self.thumbnails: dict[tuple[int, int], pg.ImageItem] = {}
        self.lines = readable(pg.PlotWidget(background="w"))
        self.lines.hideAxis("bottom")
        self.lines.hideAxis("left")
        self.lines.invertY(True)
        self.history_plot = readable(pg.PlotWidget(background="w"))
        self.history_plot.setLabel("bottom", "training step")
        self.history_plot.addLegend(offset=(-5, 5))  # top right: curves start top left
        self.positional = Heatmap("", "dimension", "position", name="positional_encoding",
                                  on_error=controller.report_error)
        self.card = self.equation_card(card_html("attention"))
        self.tabs = QTabWidget()
        self.tabs.addTab(self.heatmap, "Heatmap")
        self.tabs.addTab(column(self.grid, PlotExportBar(self.grid, None, "attention_grid",
                                                         controller.report_error)), "All heads")
        self.tabs.addTab(column(self.lines, PlotExportBar(self.lines, self._line_data,
                                                          "attention_lines",
                                                          controller.report_error)), "Lines")
        self.tabs.addTab(column(self.stat_box, self.history_plot, PlotExportBar(
            self.history_plot, self._history_data, "head_statistics", controller.report_error)),
            "Heads over training")
        # the course's position-similarity figure: how alike each position's vector is to each
        # other's (near positions alike, the diagonal 1), from the same table
        self.position_similarity = Heatmap("", "position", "position", cmap="cividis",
                                           name="position_similarity",
                                           on_error=controller.report_error)
        self.tabs.addTab(column(self.positional, self.position_similarity), "Positions")
        self.residual = ResidualView(controller.report_error)
        self.residual.setObjectName("attention-residual")  # a lesson step opens this tab
        self.tabs.addTab(self.residual, "Residual stream")
        self.tabs.addTab(self.card, "Equations")
        self.worked = WorkedView("Click a cell of the heatmap: its weight α_ij and token i's "
                                 "output are computed here, step by step, with this model's "
                                 "numbers.")
        self.worked.setObjectName("attention-computation")
        self.tabs.addTab(self.worked, "Computation")
        self.heatmap.clicked.connect(self.explain_cell)
        self.set_body(self.tabs)

    def request(self, snapshot, text):
        """A sequence-to-sequence model is probed with a pair (its own kind of text): switching
        between kinds of model swaps the probe text for the kind's default."""
        seq2seq = snapshot is not None and snapshot.task_name == "seq2seq"
        if seq2seq and text in ("", DEFAULT_PROBE):
            text = self.controller.backend.seq2seq.default_probe(snapshot)
        elif not seq2seq and "→" in text:
            text = DEFAULT_PROBE
        if text != self.probe_bar.text.text():
            self.probe_bar.text.setText(text)
        if seq2seq:
            return self.controller.backend.seq2seq.probe_job(snapshot, text)
        return super().request(snapshot, text)

    def attention_layers(self) -> list[AttentionView]:
        return [] if self.trace is None else attention_views(self.trace)

    # --- data in ------------------------------------------------------------------------------

    def draw(self, trace: Trace | Seq2seqTrace) -> None:
        layers = self.attention_layers()
        extras = trace.extras if isinstance(trace, Trace) else {}  # (a Seq2seqTrace has none)
        step = int(extras.get("step", 0))
        stats = {k.split("/", 1)[1]: v for k, v in extras.items()
                 if k.startswith("head_stats/")}
        model = model_key(self.probe_bar.traced_snapshot)
        if model != self._history_model:  # another run or model: its own curves (a mixed
            self._history_model, self.history = model, []  # history had rows of 2 and 4 heads)
        if stats:
            self.history = [h for h in self.history if h[0] != step] + [(step, stats)]
            self.history.sort(key=lambda item: item[0])
        if not layers:  # said in the plot's title: a message line would lay the panel out again
            self.heatmap.plot.setTitle("This model has no attention layers: see Gates.")
            self.worked.show_message(self.worked.placeholder)
            return
        if isinstance(trace, Trace):  # a language model's or encoder's blocks, as traced
            self.residual.set_layers(trace.layers, trace.token_text)
        self.refill(self.layer_box, [layer.name for layer in layers])
        self.refill(self.head_box, [f"head {h}" for h in
                                    range(max(v.attn.shape[0] for v in layers))])
        convention = layers[0].convention
        traced = self.probe_bar.traced_snapshot
        encoder = traced is not None and traced.task_name in ENCODER_TASKS
        self.card.setText(wrap(attention_card(causal="no causal mask" not in convention,
                                              scaled="without the 1/√d_k" not in convention,
                                              encoder=encoder) + rotary_note(convention)))
        self._draw()
        self._draw_grid()
        self._draw_history()
        tables = position_tables(extras)
        if tables is not None:
            names = [str(i) for i in range(len(tables.table))]
            self.positional.set_data(tables.table, names, tables.column_names,
                                     title=tables.title)
            self.positional.colorbar.setColorMap(pg.colormap.get("cividis"))
            self.position_similarity.set_data(tables.similarity, names, names,
                                              levels=(-1.0, 1.0),
                                              title=tables.similarity_title)

    def select(self, layer: int, head: int) -> None:
        self.layer_box.setCurrentIndex(layer)
        self.head_box.setCurrentIndex(head)
        self.tabs.setCurrentIndex(0)

    def explain_cell(self, i: int, j: int) -> None:
        """The worked computation of α_ij (query i, key j) of the shown head, and of token i's
        output, from the weights of the snapshot that made this trace."""
        layer, head = self.current()
        snapshot = self.probe_bar.traced_snapshot
        if layer is None or snapshot is None or "attn_in" not in layer.values:
            self.worked.show_message("No worked computation for this view: probe a transformer "
                                     "snapshot first.")
        else:
            convention = layer.convention
            try:
                computation = attention_computation(
                    layer.values, snapshot.weights, f"blocks.{layer.name.split()[-1]}.", head,
                    i, j, self.trace.token_text, causal="no causal mask" not in convention,
                    scaled="without the 1/√d_k" not in convention)
            except (KeyError, ValueError) as exc:
                self.worked.show_message(f"Cannot work this cell out: {exc}")
            else:
                self.worked.show_computation(computation)
        self.tabs.setCurrentWidget(self.worked)

    # --- drawing ------------------------------------------------------------------------------

    def current(self) -> tuple[Any, int]:
        layers = self.attention_layers()
        if not layers:
            return None, 0
        layer = layers[max(self.layer_box.currentIndex(), 0)]
        return layer, min(max(self.head_box.currentIndex(), 0), layer.attn.shape[0] - 1)

    def _draw(self) -> None:
        layer, head = self.current()
        if layer is None:
            return
        scores = self.what_box.currentIndex() == 1 and layer.scores is not None
        matrix = (layer.scores if scores else layer.attn)[head]
        what = "scores QKᵀ/√d_k" if scores else "weights α"
        shown = masked(matrix, None if layer.scores is None else layer.scores[head]) \
            if layer.causal or layer.scores is not None else finite(matrix)
        self.heatmap.set_data(shown, layer.rows, layer.cols,
                              levels=None if scores else (0.0, 1.0),
                              title=f"{layer.name}, head {head}: {what}")
        self._draw_lines(np.asarray(layer.attn[head]), layer)

    def _draw_grid(self) -> None:
        self.grid.clear()
        self.thumbnails.clear()
        cmap = pg.colormap.get("viridis")
        layers = self.attention_layers()
        for h in range(max(v.attn.shape[0] for v in layers) if layers else 0):
            self.grid.addLabel(f"head {h}", row=0, col=h + 1, color="k")
        for li, layer in enumerate(layers):
            self.grid.addLabel(layer.name, row=li + 1, col=0, angle=-90, color="k")
            for h, matrix in enumerate(layer.attn):
                box = self.grid.addViewBox(row=li + 1, col=h + 1, lockAspect=True,
                                           invertY=True, enableMouse=False)
                image = pg.ImageItem(masked(matrix, None if layer.scores is None
                                            else layer.scores[h])
                                     if layer.causal or layer.scores is not None
                                     else finite(matrix),
                                     axisOrder="row-major", levels=(0, 1))
                image.setColorMap(cmap)
                image.mouseClickEvent = lambda _ev, li=li, h=h: self.select(li, h)
                image.setToolTip(f"{layer.name}, head {h}: click to open")
                box.addItem(image)
                self.thumbnails[(li, h)] = image

    def _draw_lines(self, attn: np.ndarray, layer: AttentionView) -> None:
        """Keys on the left, queries on the right; a line per weight above 0.05."""
        plot = self.lines
        plot.clear()
        t = max(len(layer.rows), len(layer.cols))
        for x, anchor, tokens in ((0.0, (1, 0.5), layer.cols), (1.0, (0, 0.5), layer.rows)):
            for i, text in ticks(tokens, 64):
                label = pg.TextItem(text, color="k", anchor=anchor)
                label.setPos(x, i - 0.5)
                plot.addItem(label)
        for lo, hi in zip(LINE_BUCKETS, LINE_BUCKETS[1:] + (1.01,), strict=True):
            rows, cols = np.nonzero((attn >= lo) & (attn < hi))
            if len(rows) == 0:
                continue
            xs = np.repeat([[0.0, 1.0]], len(rows), axis=0).ravel()
            ys = np.stack([cols, rows], axis=1).ravel().astype(float)
            alpha = int(60 + 195 * min(hi, 1.0))
            plot.plot(xs, ys, connect="pairs",
                      pen=pg.mkPen(31, 119, 180, alpha, width=1 + 4 * lo))
        plot.setXRange(-0.4, 1.4)
        plot.setYRange(-1, t)
        plot.setTitle("keys (left) → queries (right): thicker = more attention")

    def _draw_history(self) -> None:
        plot = self.history_plot
        plot.clear()
        layer, _ = self.current()
        if layer is None or not self.history:
            return
        column_index = max(self.stat_box.currentIndex(), 0)
        steps = [s for s, stats in self.history if layer.name in stats]
        values = np.array([stats[layer.name][:, column_index] for _, stats in self.history
                           if layer.name in stats])  # (snapshots, heads)
        for head in range(values.shape[1]):
            colour = series_colour(head)
            plot.plot(steps, values[:, head], pen=pg.mkPen(colour, width=2), symbol="o",
                      symbolSize=5, symbolBrush=colour, name=f"head {head}")
        plot.setLabel("left", STATISTICS[column_index])
        plot.setTitle(f"{layer.name}: {STATISTICS[column_index]} per head over training")

    def _line_data(self):
        layer, head = self.current()
        if layer is None:
            return ["query", "key", "weight"], [[], [], []]
        attn = np.asarray(layer.attn[head])
        rows, cols = (np.tril_indices(attn.shape[0]) if layer.causal
                      else np.indices(attn.shape).reshape(2, -1))
        return ["query", "key", "weight"], [rows.tolist(), cols.tolist(),
                                            attn[rows, cols].tolist()]

    def _history_data(self):
        layer, _ = self.current()
        header, columns = ["step", "head", *STATISTICS], [[] for _ in range(6)]
        for step, stats in self.history:
            if layer is None or layer.name not in stats:
                continue
            for head, row in enumerate(stats[layer.name]):
                for target, value in zip(columns, [step, head, *row], strict=True):
                    target.append(float(value))
        return header, columns
