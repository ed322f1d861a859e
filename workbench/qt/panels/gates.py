"""Gate inspector: LSTM/GRU/RNN gates and states along a probe, unit by unit.

Per layer, a units × time heatmap of the chosen gate or state with the probe's tokens on the
time axis; click a unit for its curve and the probe text coloured by its activation ("cell over
text"); a saturation scatter (fraction of steps each unit's gate is < 0.1 vs > 0.9) with a
slider over the snapshots seen during training; the cell's equation card and GRU convention.
"""

from __future__ import annotations

import html
from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QLabel, QSlider, QSplitter, QTabWidget

from workbench.core.recurrent_cells import CELLS
from workbench.core.trace import Trace
from workbench.core.worked.recurrent import layer_input, step_computation
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.boxes import column, readable, row, set_title
from workbench.qt.widgets.cell_equations import card_html
from workbench.qt.widgets.heatmap import Heatmap
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.probe_bar import model_key
from workbench.qt.widgets.token_colours import token_line, waiting_line
from workbench.qt.widgets.unrolled_graph import UnrolledGraph
from workbench.qt.widgets.worked_view import WorkedView

ORDER = ("i", "f", "g", "o", "c", "r", "z", "z_course", "n", "h")
NAMES = {"i": "input gate i", "f": "forget gate f", "g": "candidate g", "o": "output gate o",
         "c": "cell state c", "r": "reset gate r",
         "z": "update gate z, PyTorch's (= 1 − the course's z_t)",
         "z_course": "update gate z_t, the course's (= 1 − PyTorch's z)",
         "n": "candidate n", "h": "hidden state h"}
DERIVED = {"z_course": "z"}  # shown gates computed from a traced one (the complement)


def gate_values(layer, gate: str) -> np.ndarray:
    """(T, H) values of a gate of the trace; "z_course" is 1 − PyTorch's z (Chung et al.'s
    and Olah's h_t = (1 − z_t) h_{t−1} + z_t h̃_t; PyTorch's z is Cho et al.'s, eq. 7)."""
    if gate == "z_course":
        return 1.0 - np.asarray(layer.values["z"])
    return np.asarray(layer.values[gate])
RECURRENT = tuple(CELLS)  # the layer kinds this view shows: every recurrent cell


def _short(value: float) -> str:
    return f"{value:.3g}".replace("-", "−")


def activation_html(tokens: list[str], values: np.ndarray, lo: float, hi: float) -> str:
    """The probe text with each token's background coloured by `values` (viridis)."""
    cmap = pg.colormap.get("viridis")
    span = hi - lo if hi > lo else 1.0
    parts = []
    for token, value in zip(tokens, values, strict=False):
        colour = cmap.map((float(value) - lo) / span, mode="qcolor")
        text = "white" if colour.lightness() < 128 else "black"
        shown = html.escape(token).replace("\n", "↵<br>") or "∅"
        parts.append(f'<span style="background:{colour.name()}; color:{text}" '
                     f'title="{value:.3f}">{shown}</span>')
    return token_line("".join(parts), "large")



class GatesPanel(InspectorPanel):
    name: ClassVar[str] = "gates"
    title: ClassVar[str] = "Gates"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.unit = 0
        self.history: list[tuple[int, dict[str, np.ndarray]]] = []  # (step, saturation extras)
        self._history_model: tuple[str, str] = ("", "")  # the run the history is of
        self.layer_box = self.add_choice("Layer")
        self.gate_box = self.add_choice("Gate / state")
        self.cmap_box = self.add_choice("Colours", ("viridis", "cividis"))
        self.layer_box.currentIndexChanged.connect(self._fill_gates)
        self.gate_box.currentIndexChanged.connect(self._draw)
        self.cmap_box.currentTextChanged.connect(lambda c: self.heatmap.set_colormap(c))
        self.heatmap = Heatmap("", "time step (probe token)", "unit", name="gates",
                               on_error=controller.report_error)
        self.heatmap.clicked.connect(self._on_cell)
        # unit view: curve + coloured text
        self.curve_plot = readable(pg.PlotWidget(background="w"))
        self.curve_plot.showGrid(x=True, y=True, alpha=0.3)
        self.curve = self.curve_plot.plot(pen=pg.mkPen("#1f77b4", width=2), symbol="o",
                                          symbolSize=4)
        self.text_view = QLabel(waiting_line(
            "Each token of the probe, coloured by the gate's value", "large"))
        self.text_view.setWordWrap(True)
        self.text_view.setTextFormat(Qt.TextFormat.RichText)
        unit_tab = column(self.curve_plot, PlotExportBar(
            self.curve_plot, self._curve_data, "unit", controller.report_error), self.text_view)
        # saturation scatter with a slider over snapshots
        self.scatter_plot = readable(pg.PlotWidget(background="w"))
        self.scatter_plot.setLabel("bottom", "fraction of steps &lt; 0.1 (shut)")
        self.scatter_plot.setLabel("left", "fraction of steps &gt; 0.9 (open)")
        self.scatter_plot.setRange(xRange=(0, 1), yRange=(0, 1))
        self.scatter = pg.ScatterPlotItem(size=7, brush=pg.mkBrush(31, 119, 180, 160))
        self.scatter_plot.addItem(self.scatter)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.valueChanged.connect(self._draw_saturation)
        self.slider_label = QLabel("no snapshots yet")
        saturation_tab = column(self.scatter_plot, PlotExportBar(
            self.scatter_plot, self._scatter_data, "saturation", controller.report_error),
            row(QLabel("Snapshot"), self.slider, self.slider_label))
        self.card = self.equation_card()
        self.tabs = QTabWidget()
        self.tabs.addTab(unit_tab, "Unit")
        self.tabs.addTab(saturation_tab, "Saturation")
        self.unrolled = UnrolledGraph()  # the selected unit through the first steps
        self.tabs.addTab(self.unrolled, "Unrolled")
        self.tabs.addTab(self.card, "Equations")
        self.worked = WorkedView("Click a cell of the heatmap: that unit's step is computed here "
                                 "(each gate's pre-activation, its squashing, the cell update) "
                                 "with this model's numbers.")
        self.worked.setObjectName("gates-computation")
        self.tabs.addTab(self.worked, "Computation")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.heatmap)
        splitter.addWidget(self.tabs)
        self.set_body(splitter)

    # --- data in ------------------------------------------------------------------------------

    def draw(self, trace: Trace) -> None:
        layers = [layer for layer in trace.layers if layer.kind in RECURRENT]
        step = int(trace.extras.get("step", 0))
        saturation = {k: v for k, v in trace.extras.items() if k.startswith("saturation/")}
        model = model_key(self.probe_bar.traced_snapshot)
        if model != self._history_model:  # another run: its own slider (a later run's steps
            self._history_model, self.history = model, []  # were dropped as already seen)
        if saturation:
            self.history = [h for h in self.history if h[0] != step] + [(step, saturation)]
            self.history.sort(key=lambda item: item[0])
            self.slider.setRange(0, len(self.history) - 1)
            self.slider.setValue(len(self.history) - 1)
        if not layers:  # said in the plot's title: a message line would lay the panel out again
            self.heatmap.plot.setTitle("This model has no recurrent layers: see Attention.")
            self.worked.show_message(self.worked.placeholder)
            return
        self.refill(self.layer_box, [layer.name for layer in layers])
        self._fill_gates()
        self._draw_saturation()

    def layer(self):
        if self.trace is None or not self.layer_box.currentText():
            return None
        return self.trace.layer(self.layer_box.currentText())

    def _fill_gates(self) -> None:
        layer = self.layer()
        if layer is None:
            return
        current = self.gate_box.currentData()
        with QSignalBlocker(self.gate_box):
            self.gate_box.clear()
            for key in (k for k in ORDER if k in layer.values or DERIVED.get(k) in layer.values):
                self.gate_box.addItem(NAMES[key], key)
            index = self.gate_box.findData(current)
            self.gate_box.setCurrentIndex(max(index, 0))
        note = f"Shown here: {layer.convention}" if layer.convention else ""
        self.card.setText(card_html(layer.kind, note))
        self._draw()

    # --- drawing ------------------------------------------------------------------------------

    def _draw(self) -> None:
        layer, gate = self.layer(), self.gate_box.currentData()
        if layer is None or gate is None:
            return
        values = gate_values(layer, gate).T  # (H, T): units down, time across
        levels = (0.0, 1.0) if gate in ("i", "f", "o", "r", "z", "z_course") else None
        if gate in ("g", "n", "h") and layer.kind != "rnn" or layer.kind == "rnn" and gate == "h":
            levels = (-1.0, 1.0)
        self.heatmap.set_data(values, [str(u) for u in range(values.shape[0])],
                              self.trace.token_text, levels=levels,
                              title=f"{layer.name}: {NAMES[gate]} (units × time)")
        self.select_unit(min(self.unit, values.shape[0] - 1))

    def select_unit(self, unit: int) -> None:
        layer, gate = self.layer(), self.gate_box.currentData()
        if layer is None or gate is None:
            return
        self.unit = unit
        series = gate_values(layer, gate)[:, unit]
        self.curve.setData(np.arange(len(series)), series)
        self.curve_plot.getAxis("bottom").setTicks([[(i, t) for i, t in enumerate(
            self.trace.token_text)][:: max(1, len(series) // 40)]])
        # the unit's own range, not the heatmap's: on the heatmap's scale (a cell state's
        # −20…30 over all units) a unit swinging −1…2.5 colours every token alike
        lo, hi = float(np.min(series)), float(np.max(series))
        self.text_view.setText(activation_html(self.trace.token_text, series, lo, hi))
        # the range in the curve's title: a line under the text made the panel taller
        set_title(self.curve_plot, f"unit {unit}: {NAMES[gate]} along the probe; text below "
                  f"coloured from {_short(lo)} (dark) to {_short(hi)} (yellow)")
        self.unrolled.show_steps(self.trace.token_text, series,
                                 f"{layer.name}, unit {unit}: {NAMES[gate]}")

    def _on_cell(self, unit: int, t: int) -> None:
        self.select_unit(unit)
        self.explain_step(t, unit)

    def explain_step(self, t: int, unit: int) -> None:
        """The worked computation of `unit` at step t from the snapshot's weights."""
        layer, snapshot = self.layer(), self.probe_bar.traced_snapshot
        if layer is None or snapshot is None or self.trace.embeddings is None:
            self.worked.show_message("Probe a recurrent model first.")
            return
        nonlinearity = str(snapshot.model_config.get("nonlinearity", "tanh"))
        try:
            computation = step_computation(layer.kind, layer.name, layer.values,
                                           layer_input(self.trace, layer.name), snapshot.weights,
                                           t, unit, self.trace.token_text, nonlinearity)
        except (KeyError, ValueError, IndexError) as exc:
            self.worked.show_message(f"Cannot work this step out: {exc}")
            return
        self.worked.show_computation(computation)
        self.tabs.setCurrentWidget(self.worked)

    def _draw_saturation(self) -> None:
        if not self.history:
            return
        step, saturation = self.history[self.slider.value()]
        layer, gate = self.layer_box.currentText(), self.gate_box.currentData()
        key = f"saturation/{layer}/{gate}"
        if key not in saturation:
            key = next(iter(saturation))
        points = saturation[key]
        self.scatter.setData(points[:, 0], points[:, 1])
        set_title(self.scatter_plot, f"{key.split('/', 1)[1]} at step {step}")
        self.slider_label.setText(f"step {step} ({self.slider.value() + 1}/{len(self.history)})")

    def _curve_data(self):
        x, y = self.curve.getData()
        tokens = self.trace.token_text if self.trace is not None else []
        return ["t", "token", "activation"], [list(x if x is not None else []), tokens,
                                              list(y if y is not None else [])]

    def _scatter_data(self):
        x, y = self.scatter.getData()
        return ["unit", "shut_fraction", "open_fraction"], [list(range(len(x))), list(x), list(y)]

