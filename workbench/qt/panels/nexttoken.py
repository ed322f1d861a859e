"""Next-token view: what the model expects at each probe position, and its hidden-state path.

The probe text is coloured by each token's loss −log p(x_t | x_<t) (bright = surprising); a
table gives the top-k next tokens with probabilities at every position; a bar chart shows the
selected position's distribution (SEEDS.md 4.5 figure 28); the last layer's hidden states are
projected on their two principal components and drawn as a path through the probe.
"""

from __future__ import annotations

import html
from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
)

from workbench.core.jobs import UserFacingError
from workbench.core.trace import Trace
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.boxes import column, readable, set_title
from workbench.qt.widgets.context_compare import ContextCompare
from workbench.qt.widgets.heatmap import visible_token
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.task_guard import require_task
from workbench.qt.widgets.token_colours import token_line, waiting_line


def loss_html(tokens: list[str], losses: np.ndarray, top: float) -> str:
    """Tokens with a background from the cividis map by loss (NaN: no prediction, white)."""
    cmap = pg.colormap.get("cividis")
    parts = []
    for t, (token, loss) in enumerate(zip(tokens, losses, strict=False)):
        shown = html.escape(token).replace("\n", "↵<br>") or "∅"
        if not np.isfinite(loss):
            parts.append(f'<a href="{t}" style="color:black; text-decoration:none">{shown}</a>')
            continue
        colour = cmap.map(min(float(loss) / top, 1.0), mode="qcolor")
        ink = "white" if colour.lightness() < 128 else "black"
        parts.append(f'<a href="{t}" style="background:{colour.name()}; color:{ink}; '
                     f'text-decoration:none" title="loss {loss:.2f} nats">{shown}</a>')
    return token_line("".join(parts), "x-large")



class NextTokenPanel(InspectorPanel):
    name: ClassVar[str] = "nexttoken"
    title: ClassVar[str] = "Next token"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.position = 0
        self.text_view = QLabel(
            waiting_line("Each token's loss, once probed", "x-large")
            + "<small>and their mean, in nats and bits per token</small>")
        self.text_view.setWordWrap(True)
        self.text_view.setTextFormat(Qt.TextFormat.RichText)
        self.text_view.setToolTip("Colour = loss of each token given the ones before it "
                                  "(cividis: dark = expected, yellow = surprising). Click one.")
        self.text_view.linkActivated.connect(lambda link: self.select_position(int(link)))
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.currentCellChanged.connect(lambda row, *_: self.select_position(row))
        self.bars_plot = readable(pg.PlotWidget(background="w"))
        self.bars_plot.setLabel("left", "probability")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush="#0072B2")
        self.bars_plot.addItem(self.bars)
        self.path_plot = readable(pg.PlotWidget(background="w"))
        self.path_plot.setAspectLocked(False)
        # the path's items live as long as the panel: each probe sets their data (making a
        # TextItem per token per probe, and removing the old ones, stalled the window)
        self.path_line = self.path_plot.plot([], [], pen=pg.mkPen("#999999", width=1))
        self.path_dots = pg.ScatterPlotItem(size=9)
        self.path_plot.addItem(self.path_dots)
        self.path_labels: list[pg.TextItem] = []
        self.dot_brushes: list = []
        self.axis_labels: tuple[str, str] = ("", "")
        self.column_chars: list[int] = []  # the longest text each table column has had
        self.tabs = QTabWidget()
        self.tabs.addTab(column(self.bars_plot, PlotExportBar(
            self.bars_plot, self._bar_data, "next_token", controller.report_error)),
            "Distribution")
        self.tabs.addTab(column(self.path_plot, PlotExportBar(
            self.path_plot, self._path_data, "hidden_state_path", controller.report_error)),
            "Hidden-state path (PCA)")
        self.context = ContextCompare(self._probe_other, controller.report_error)
        self.context.setObjectName("nexttoken-context")
        self.tabs.addTab(self.context, "Static vs contextual")
        self.table_export = PlotExportBar(self.bars_plot, self._table_data, "top_k_table",
                                          controller.report_error)
        for kind in ("PNG", "SVG"):  # a table has data, not a picture
            self.table_export.buttons[kind].hide()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(column(self.table, self.table_export))
        splitter.addWidget(self.tabs)
        splitter.setSizes([400, 500])
        self.controls.addWidget(self.text_view)
        self.set_body(splitter)

    def request(self, snapshot, text):
        require_task(snapshot, "language_model", "predict next tokens")
        return super().request(snapshot, text)

    def _probe_other(self, text: str, on_trace) -> bool:
        """The second sentence of the static-vs-contextual tab, through the model this panel
        traced (a query like the panel's own probe)."""
        snapshot = self.probe_bar.traced_snapshot
        if snapshot is None:
            return False
        try:
            spec = self.controller.backend.inspection.probe_job(snapshot, text, gradients=False)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        return self.controller.run_query(spec, on_result=on_trace, caller="context-second")

    def draw(self, trace: Trace) -> None:
        x = trace.extras
        losses = np.asarray(x["token_loss"], dtype=float)
        finite = losses[np.isfinite(losses)]
        top = max(float(finite.max()) if finite.size else 1.0, 1e-6)
        mean = float(finite.mean()) if finite.size else float("nan")
        self.text_view.setText(loss_html(trace.token_text, losses, top)
                               + f"<small>mean loss {mean:.3f} nats/token, "
                                 f"{mean / np.log(2):.3f} bits</small>")
        self._fill_table(trace, losses)
        self._draw_path()
        self.select_position(min(self.position, len(trace.token_text) - 1))
        self.context.set_first(trace)

    def select_position(self, t: int) -> None:
        if self.trace is None or t < 0:
            return
        self.position = t
        x = self.trace.extras
        probs = np.asarray(x["topk_probs"][t], dtype=float)
        labels = [visible_token(str(s)) for s in x["topk_text"][t]]
        ids = np.asarray(x["topk_ids"][t])
        actual = int(self.trace.tokens[t + 1]) if t + 1 < len(self.trace.tokens) else -1
        brushes = ["#D55E00" if i == actual else "#0072B2" for i in ids]
        self.bars.setOpts(x=np.arange(len(probs)), height=probs, brushes=brushes)
        self.bars_plot.getAxis("bottom").setTicks([list(enumerate(labels))])
        self.bars_plot.setYRange(0, 1)
        context = visible_token("".join(self.trace.token_text[: t + 1])[-30:])
        set_title(self.bars_plot, f"after “{context}” (orange: the probe's actual next token)")
        if self.table.currentRow() != t:
            with QSignalBlocker(self.table):
                self.table.selectRow(t)

    def _fill_table(self, trace: Trace, losses: np.ndarray) -> None:
        """Give the table this probe's cells. The probe text stays from probe to probe while a
        model trains, so the items are kept and only changed texts set, and the columns are
        measured again only when a text is longer than any before it: clearing, refilling and
        measuring every cell was most of this panel's time on the GUI thread (bench_soak)."""
        x = trace.extras
        k = x["topk_ids"].shape[1]
        shape = (len(trace.token_text), 2 + k)
        with QSignalBlocker(self.table):
            if (self.table.rowCount(), self.table.columnCount()) != shape:
                self.table.clearContents()
                self.table.setRowCount(shape[0])
                self.table.setColumnCount(shape[1])
                self.table.setHorizontalHeaderLabels(["token", "loss"] + [f"next #{i + 1}"
                                                                           for i in range(k)])
                self.column_chars = [0] * shape[1]
            longer = False
            for t, token in enumerate(trace.token_text):
                cells = [visible_token(token),
                         "" if not np.isfinite(losses[t]) else f"{losses[t]:.2f}"]
                cells += [f"{visible_token(str(x['topk_text'][t, i]))}  {x['topk_probs'][t, i]:.2f}"
                          for i in range(k)]
                for c, text in enumerate(cells):
                    item = self.table.item(t, c)
                    if item is None:
                        self.table.setItem(t, c, QTableWidgetItem(text))
                    elif item.text() != text:
                        item.setText(text)
                    if len(text) > self.column_chars[c]:
                        self.column_chars[c], longer = len(text), True
        if longer:
            self.table.resizeColumnsToContents()

    def _draw_path(self) -> None:
        plot = self.path_plot
        path = self.trace.extras.get("pca_path")
        path = np.zeros((0, 2)) if path is None else np.asarray(path)
        self.path_line.setData(path[:, 0], path[:, 1])
        if len(self.dot_brushes) != len(path):  # the same brushes each probe: the scatter
            colours = pg.colormap.get("viridis").map(  # renders a symbol per new brush
                np.linspace(0, 1, len(path)), mode="qcolor")
            self.dot_brushes = [pg.mkBrush(c) for c in colours]
        self.path_dots.setData(path[:, 0], path[:, 1], brush=self.dot_brushes)
        while len(self.path_labels) < len(path):
            label = pg.TextItem(color="k", anchor=(0, 1))
            plot.addItem(label)
            self.path_labels.append(label)
        for i, label in enumerate(self.path_labels):
            label.setVisible(i < len(path))
            if i < len(path):
                text = visible_token(self.trace.token_text[i])
                if label.toPlainText() != text:
                    label.setText(text)
                label.setPos(*path[i])
        if not len(path):
            return
        ratio = self.trace.extras.get("pca_explained", np.zeros(2))
        labels = (f"PC1 ({ratio[0]:.0%} of variance)", f"PC2 ({ratio[1]:.0%})")
        if labels != self.axis_labels:  # setting a label lays the plot out again
            self.axis_labels = labels
            plot.setLabel("bottom", labels[0])
            plot.setLabel("left", labels[1])
        set_title(plot, "last layer's state along the probe (dark → light = later)")

    def _bar_data(self):
        if self.trace is None:
            return ["rank", "token", "probability"], [[], [], []]
        x, t = self.trace.extras, self.position
        return ["rank", "token", "probability"], [
            list(range(1, x["topk_ids"].shape[1] + 1)), [str(s) for s in x["topk_text"][t]],
            [float(p) for p in x["topk_probs"][t]]]

    def _path_data(self):
        if self.trace is None or "pca_path" not in self.trace.extras:
            return ["t", "token", "pc1", "pc2"], [[], [], [], []]
        path = np.asarray(self.trace.extras["pca_path"])
        return ["t", "token", "pc1", "pc2"], [list(range(len(path))), self.trace.token_text,
                                              path[:, 0].tolist(), path[:, 1].tolist()]

    def _table_data(self):
        if self.trace is None:
            return ["t", "token", "loss"], [[], [], []]
        x = self.trace.extras
        k = x["topk_ids"].shape[1]
        header = ["t", "token", "loss"] + [f"next{i + 1}" for i in range(k)] + [
            f"p{i + 1}" for i in range(k)]
        columns = [list(range(len(self.trace.token_text))), self.trace.token_text,
                   [float(v) for v in x["token_loss"]]]
        columns += [[str(s) for s in x["topk_text"][:, i]] for i in range(k)]
        columns += [[float(p) for p in x["topk_probs"][:, i]] for i in range(k)]
        return header, columns
