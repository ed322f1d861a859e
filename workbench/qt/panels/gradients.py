"""Gradient through time: ‖∂L/∂h_t‖ against t for each recurrent layer, along the probe; for
a transformer decoder ‖∂L_T/∂x_t^(l)‖, the residual stream entering each block.

The curve shows how much the probe's loss still depends on the state at each earlier step:
falling steeply going back is the vanishing gradient, rising the exploding one (SEEDS.md 4.2
figure 12). Each new snapshot replaces its run's curves; curves of other runs stay, so the
Elman RNN, LSTM and GRU runs a user opened can be compared on one plot, and beside them a
transformer's (GPT-2's, a Llama's): no fading going back, every position is one attention
hop away. The latest MAX_RUNS runs stay: a lesson's dozen restarted runs made a legend taller
than the plot, and every curve's markers were painted again on each probe (bench_soak's stalls
grew with the runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QPushButton, QTabWidget

from workbench.core.trace import Trace
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.boxes import column, readable, series_colour, set_title
from workbench.qt.widgets.cell_equations import card_html
from workbench.qt.widgets.log_axis import log_axes
from workbench.qt.widgets.plot_export import PlotExportBar

MAX_RUNS = 6  # runs overlaid; the one probed longest ago goes first, never the live one
LAYER_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
                Qt.PenStyle.DashDotLine)


LM_TITLE = "‖∂L_T/∂h_t‖: how far back the last prediction's loss reaches"
ENCODER_TITLE = "‖∂L/∂h_t‖: how far along the sentence the model's decision reaches"
STREAM_TITLE = "‖∂L_T/∂x_t^(l)‖: how much the last prediction's loss depends on the stream at t"
MIXED_TITLE = "‖∂L_T/∂h_t‖ (recurrent) beside ‖∂L_T/∂x_t^(l)‖ (transformer)"
# a masked LM's probe has no original token at the blank: its loss is that of its own answer
MASKED_TITLE = ("‖∂L/∂x_t^(l)‖, L = −log p(its own best guess at [MASK]): how much the blank's "
                "answer depends on the stream at each position, both sides")
NO_MASK = ("Put [MASK] in the probe (e.g. 'To be, or not to [MASK]'): the curves follow the "
           "loss of the model's own best guess at the blank back to every position, on both "
           "sides of it.")
# why a transformer encoder has no curve: the view's question is how far back one prediction
# reaches, and an encoder makes none at the end that only the past feeds
ENCODER_REFUSAL = (
    "Gradient through time covers recurrent models and transformer decoders. A transformer "
    "encoder makes no last prediction fed by the past alone: every position reads the whole "
    "sentence, both ways, in every block, so there is no 'back' for the gradient to reach. "
    "Its Attention heatmaps show what each position reads.")


class GradientsPanel(InspectorPanel):
    name: ClassVar[str] = "gradients"
    title: ClassVar[str] = "Gradient through time"
    gradients: ClassVar[bool] = True

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        # run folder (the label when a snapshot has none) -> (legend label, step, {layer name:
        # norms (T-1,)}): one entry per run, keyed by folder since two runs may share a name
        self.runs: dict[str, tuple[str, int, dict[str, np.ndarray]]] = {}
        self.current = ""  # the run of the latest snapshot
        self.probed: dict[str, int] = {}  # run -> when it was last probed (a counter)
        self.colours: dict[str, int] = {}  # run -> its colour, kept while it stays
        self.streams: dict[str, bool] = {}  # run -> whether its curves are a transformer's
        self.masked: dict[str, bool] = {}  # run -> whether its curves follow a [MASK]
        self.tokens: list[str] = []
        self.title_text = LM_TITLE
        self.log_scale = QCheckBox("Log scale")
        self.log_scale.setChecked(True)
        self.log_scale.toggled.connect(self._draw)
        self.normalise = QCheckBox("Divide by the last step's norm")
        self.normalise.setToolTip("Compare the decay of runs whose losses differ in size.")
        self.normalise.toggled.connect(self._draw)
        clear = QPushButton("Clear other runs")
        clear.setToolTip(f"Keep only the run being probed. The plot keeps the latest {MAX_RUNS} "
                         "runs by itself.")
        clear.clicked.connect(self.clear_other_runs)
        self.plot = readable(pg.PlotWidget(background="w", axisItems=log_axes("left")))
        self._axis_labels = ("", "")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.legend = self.plot.addLegend(offset=(-5, 5))
        # (run folder, layer) -> its curve, kept from probe to probe
        self.curve_items: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._log_mode: bool | None = None
        self.card = self.equation_card(card_html("gradient"))
        for widget in (self.log_scale, self.normalise, clear):
            self.controls.addWidget(widget)
        self.controls.addStretch(1)
        self.tabs = QTabWidget()
        self.tabs.addTab(column(self.plot, PlotExportBar(
            self.plot, self._data, "gradient_through_time", controller.report_error)), "Plot")
        self.tabs.addTab(self.card, "Equation")
        self.set_body(self.tabs)

    def draw(self, trace: Trace) -> None:
        norms = {k.split("/", 1)[1]: np.asarray(v) for k, v in trace.extras.items()
                 if k.startswith("grad_norm/")}
        snapshot = self.snapshot
        label = (snapshot.run_name or snapshot.arch) if snapshot is not None else "model"
        if snapshot is not None and snapshot.arch and snapshot.arch not in label:
            label = f"{label} ({snapshot.arch})"
        # a transformer's layers are attention blocks: its curves are the residual stream's
        stream = any(layer.kind == "attention" for layer in trace.layers)
        masked = snapshot is not None and snapshot.task_name == "masked_lm"
        if not norms:
            encoder = stream and "topk_ids" not in trace.extras
            self.show_message(
                NO_MASK if masked and stream else ENCODER_REFUSAL if encoder else
                "The probe needs two tokens or more: the curves are of the last prediction's "
                "loss." if len(trace.token_text) < 2 else
                "This model has no state to differentiate: gradient through time is for RNN, "
                "LSTM, GRU and transformer decoders.")
            return
        self.tokens = list(trace.token_text)
        self.card.setText(card_html("gradient_stream" if stream else "gradient"))
        # an encoder's gradient follows its decision (a label, or the last word's tag) back
        # along the sentence in both directions; a language model's its last prediction
        self.title_text = ENCODER_TITLE if "topk_ids" not in trace.extras else LM_TITLE
        key = (snapshot.run_dir if snapshot is not None else "") or label
        if any(other == label and k != key for k, (other, _, _) in self.runs.items()):
            label = f"{label} [{Path(key).name}]"  # the same name, another folder
        self.runs[key] = (label, int(trace.extras.get("step", 0)), norms)
        self.current = key
        self.streams[key] = stream
        self.masked[key] = masked and stream
        self.probed[key] = max(self.probed.values(), default=0) + 1
        while len(self.runs) > MAX_RUNS:
            oldest = min((k for k in self.runs if k != key), key=self.probed.__getitem__)
            self._forget(oldest)
        if key not in self.colours:  # the first colour no overlaid run has
            self.colours[key] = min(set(range(MAX_RUNS)) - set(self.colours.values()))
        self._draw()

    def _forget(self, key: str) -> None:
        for table in (self.runs, self.probed, self.colours, self.streams, self.masked):
            table.pop(key, None)

    def clear_other_runs(self) -> None:
        for key in [k for k in self.runs if k != self.current]:
            self._forget(key)
        self._draw()

    def curves(self) -> list[tuple[str, np.ndarray]]:
        """(legend name, y values as drawn) for every curve on the plot."""
        out = []
        for label, step, norms in self.runs.values():
            for layer, values in norms.items():
                y = np.asarray(values, dtype=np.float64)
                if self.normalise.isChecked() and len(y) and y[-1] > 0:
                    y = y / y[-1]
                out.append((f"{label} @ {step}: {layer}", y))
        return out

    def _draw(self) -> None:
        """Each (run, layer) keeps its curve, given new data and a new legend text on every
        probe: making the curve and its markers anew took ~7 ms each, most of this panel's
        GUI-thread time while a model trains (bench_soak)."""
        log = self.log_scale.isChecked()
        if log != self._log_mode:
            self.plot.setLogMode(y=log)
            self._log_mode = log
        wanted = {}
        drawn = iter(self.curves())
        for key, (_, _, norms) in self.runs.items():
            colour = series_colour(self.colours.get(key, 0))
            for layer_index, layer in enumerate(norms):
                name, y = next(drawn)
                if log:
                    y = np.maximum(y, 1e-30)  # log of an exact zero would drop the point
                pen = pg.mkPen(colour, width=2,
                               style=LAYER_STYLES[layer_index % len(LAYER_STYLES)])
                wanted[(key, layer)] = (name, y, pen, colour)
        for gone in [k for k in self.curve_items if k not in wanted]:
            self.plot.removeItem(self.curve_items.pop(gone))
        for k, (name, y, pen, colour) in wanted.items():
            item = self.curve_items.get(k)
            if item is None:
                self.curve_items[k] = self.plot.plot(
                    np.arange(len(y)), y, pen=pen, name=name, symbol="o", symbolSize=4,
                    symbolBrush=colour)
                continue
            item.setData(np.arange(len(y)), y, pen=pen, symbolBrush=colour, name=name)
            label = self.legend.getLabel(item)
            if label is not None and label.text != name:
                label.setText(name)
        # the gradient at t is for the state after token t: a language model's curve stops
        # before the last token (its loss is that token's prediction), an encoder's does not
        length = max((len(y) for _, y in self.curves()), default=0)
        shown = self.tokens[:length]
        every = max(1, len(shown) // 40)
        self.plot.getAxis("bottom").setTicks(
            [[(i, text) for i, text in enumerate(shown)][::every]])
        kinds = {self.streams.get(key, False) for key in self.runs} or {False}
        # a transformer's curves are a decoder's (an encoder's are refused above)
        title = {frozenset({True}): STREAM_TITLE, frozenset({True, False}): MIXED_TITLE}.get(
            frozenset(kinds), self.title_text)  # mixed: a recurrent run beside a transformer
        masked = bool(self.runs) and all(self.masked.get(key, False) for key in self.runs)
        set_title(self.plot, MASKED_TITLE if masked else title)
        left = " and ".join(name for name, kind in (("‖∂L_T/∂h_t‖", False),
                                                    ("‖∂L_T/∂x_t^(l)‖", True)) if kind in kinds)
        bottom = "position t (probe token)" if kinds == {True} else "time step t (probe token)"
        if masked:  # both sides of the blank, [CLS] and [SEP] included where read
            left, bottom = "‖∂L/∂x_t^(l)‖", "position t (probe token, both sides of [MASK])"
        if (left, bottom) != self._axis_labels:  # setting a label lays the plot out again
            self.plot.setLabel("left", left)
            self.plot.setLabel("bottom", bottom)
            self._axis_labels = (left, bottom)

    def _data(self):
        curves = self.curves()
        length = max((len(y) for _, y in curves), default=0)
        header = ["t"] + [name for name, _ in curves]
        columns = [list(range(length))] + [
            list(y) + [float("nan")] * (length - len(y)) for _, y in curves]
        return header, columns
