"""The live curves: six linked plots (loss, perplexity, bits, learning rate, gradient norm,
tokens per second) for every visible run, with x as steps, tokens or wall time.

Each run draws its raw training curve faint behind an EMA-smoothed one, validation points on
top, and a red dashed line where the divergence guard rolled back. `redraw()` only touches runs
whose data changed since the last call; the panel calls it from a ~30 Hz timer, never per
event. Plots downsample (peak mode) and clip to the view so 100k points stay smooth.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from workbench.qt.panels.training.series import (
    X_AXES,
    RunSeries,
    SmoothedCache,
    peak_decimate,
    train_metric,
)
from workbench.qt.widgets.log_axis import log_axes
from workbench.qt.widgets.plot_export import PlotExportBar

# (train metric, validation column or None, title); "bits" is retitled per tokenizer
PLOTS = (("loss", "val_loss", "Loss (nats per token)"),
         ("perplexity", "perplexity", "Perplexity"),
         ("bits", "bits", "Bits per character"),
         ("lr", None, "Learning rate"),
         ("grad_norm", None, "Gradient norm before clipping"),
         ("tok_s", None, "Tokens per second"))
TITLE_SIZE = "9pt"


class CurvesView(QWidget):
    def __init__(self, on_error=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[RunSeries] = []
        self._drawn: dict[str, int] = {}
        self._items: dict[str, dict] = {}
        self._colours: dict[str, str] = {}
        self._smoothed: dict[tuple[str, str], SmoothedCache] = {}
        self._marked_axis: dict[str, str] = {}
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.plots: dict[str, pg.PlotItem] = {}
        for index, (metric, _, title) in enumerate(PLOTS):
            plot = self.graphics.addPlot(row=index // 3, col=index % 3,
                                         axisItems=log_axes("left"))
            plot.setTitle(title, size=TITLE_SIZE)
            plot.setMinimumWidth(120)
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            if self.plots:
                plot.setXLink(self.plots["loss"])
            self.plots[metric] = plot
        self.x_axis = QComboBox()
        for key, label in X_AXES.items():
            self.x_axis.addItem(label, key)
        self.x_axis.setToolTip("What the horizontal axis counts")
        self.log_scale = QCheckBox("Log y")
        self.log_scale.setToolTip("Logarithmic vertical axes (loss, perplexity, norms)")
        self.smoothing = QSlider(Qt.Orientation.Horizontal)
        self.smoothing.setRange(0, 99)
        self.smoothing.setValue(60)
        self.smoothing.setToolTip("EMA smoothing s of the training curves: "
                                  "y_t = s·y_(t-1) + (1−s)·x_t; the raw curve stays faint behind")
        self.smoothing_label = QLabel()
        self.export_bar = PlotExportBar(self.graphics, data=self.csv_data, name="training-curves",
                                        on_error=on_error)
        self.smoothing.setMinimumWidth(80)
        self.graphics.setMinimumWidth(300)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("x:"))
        controls.addWidget(self.x_axis)
        controls.addWidget(self.log_scale)
        controls.addWidget(QLabel("Smoothing"))
        controls.addWidget(self.smoothing, 1)
        controls.addWidget(self.smoothing_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        self.hint = QLabel("Press Train to start a run, or tick a past run in the list to see "
                           "its curves.")
        self.hint.setStyleSheet("color: #666; padding: 2px;")
        layout.addWidget(self.hint)
        layout.addWidget(self.graphics, 1)
        legend = QLabel("solid: training (smoothed) · faint: raw · dots: validation · "
                        "<span style='color:#d62728'>red dashes: divergence rollback</span>")
        legend.setStyleSheet("color: #555;")
        legend.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(legend, 1)
        bottom.addWidget(self.export_bar)
        layout.addLayout(bottom)
        self.x_axis.currentIndexChanged.connect(self._settings_changed)
        self.log_scale.toggled.connect(self._settings_changed)
        self.smoothing.valueChanged.connect(self._settings_changed)
        self._settings_changed()

    def set_unit(self, unit: str) -> None:
        self.plots["loss"].setTitle(f"Loss (nats per {unit})", size=TITLE_SIZE)
        self.plots["bits"].setTitle(f"Bits per {unit}", size=TITLE_SIZE)

    def set_runs(self, runs: list[RunSeries]) -> None:
        self.runs = runs
        self.redraw()

    def _settings_changed(self, *_) -> None:
        self.smoothing_label.setText(f"{self.smoothing.value() / 100:.2f}")
        x_key = self.x_axis.currentData()
        for metric, plot in self.plots.items():
            plot.setLabel("bottom", X_AXES[x_key])
            plot.setLogMode(y=self.log_scale.isChecked() and metric != "lr")
        self._drawn.clear()
        self.redraw()

    def redraw(self) -> None:
        """Push changed runs' data into their curves; remove curves of runs no longer listed."""
        self.hint.setVisible(not any(run.visible and run.train.size for run in self.runs))
        keys = {run.key for run in self.runs}
        for key in [k for k in self._items if k not in keys]:
            self._remove(key)
        for run in self.runs:
            if self._drawn.get(run.key) == run.version:
                continue
            self._drawn[run.key] = run.version
            self._draw(run)

    def _remove(self, key: str) -> None:
        items = self._items.pop(key, {})
        for (metric, _), item in items.items():
            self.plots[metric].removeItem(item)
        self._drawn.pop(key, None)
        self._colours.pop(key, None)
        self._marked_axis.pop(key, None)

    def _curve(self, run: RunSeries, metric: str, kind: str) -> pg.PlotDataItem:
        """The run's persistent curve of one kind on one plot (created on first use)."""
        items = self._items.setdefault(run.key, {})
        item = items.get((metric, kind))
        if item is None:
            colour = pg.mkColor(run.colour)
            if kind == "raw":
                colour.setAlpha(60)
                item = pg.PlotDataItem(pen=pg.mkPen(colour, width=1))
            elif kind == "smooth":
                item = pg.PlotDataItem(pen=pg.mkPen(colour, width=2), name=run.name)
            else:
                item = pg.PlotDataItem(pen=pg.mkPen(colour, width=2,
                                                    style=Qt.PenStyle.DashLine),
                                       symbol="o", symbolSize=6, symbolBrush=colour,
                                       symbolPen=None)
            item.setDownsampling(auto=True, method="peak")
            item.setClipToView(True)
            self.plots[metric].addItem(item)
            items[(metric, kind)] = item
        return item

    def _draw(self, run: RunSeries) -> None:
        if not run.visible or self._colours.get(run.key, run.colour) != run.colour:
            self._remove(run.key)
            self._drawn[run.key] = run.version
            if not run.visible:
                return
        self._colours[run.key] = run.colour
        x_key = self.x_axis.currentData()
        smoothing = self.smoothing.value() / 100
        x = run.train[x_key]
        empty = np.empty(0)
        for metric, val_column, _ in PLOTS:
            y = train_metric(run, metric)
            smooth = smoothing > 0 and metric != "lr"
            raw = peak_decimate(x, y) if smooth else (empty, empty)
            self._curve(run, metric, "raw").setData(*raw)
            if smooth:
                cache = self._smoothed.setdefault((run.key, metric), SmoothedCache())
                y = cache.get(y, smoothing, (smoothing, run.train.size > 0 and run.train[
                    "step"][0], len(run.divergences)))
            self._curve(run, metric, "smooth").setData(*peak_decimate(x, y))
            if val_column:
                self._curve(run, metric, "val").setData(run.val[x_key], run.val[val_column])
        self._draw_divergences(run, x_key)

    def _draw_divergences(self, run: RunSeries, x_key: str) -> None:
        items = self._items.setdefault(run.key, {})
        marked = sum(1 for k in items if k[1].startswith("rollback")) // 2
        if marked == len(run.divergences) and self._marked_axis.get(run.key) == x_key:
            return
        self._marked_axis[run.key] = x_key
        for key in [k for k in items if k[1].startswith("rollback")]:
            self.plots[key[0]].removeItem(items.pop(key))
        for n, event in enumerate(run.divergences):
            where = {"step": event.step, "tokens": event.tokens, "time": event.time}[x_key]
            for metric in ("loss", "grad_norm"):
                line = pg.InfiniteLine(where, angle=90, pen=pg.mkPen(
                    "#d62728", width=1.5, style=Qt.PenStyle.DashLine),
                    label="rollback" if metric == "loss" else None,
                    labelOpts={"color": "#d62728", "position": 0.9})
                line.setToolTip(f"Step {event.step}: {event.reason}")
                self.plots[metric].addItem(line)
                items[(metric, f"rollback{n}")] = line

    def csv_data(self) -> tuple[list[str], list[list]]:
        """Every visible run's points in long form: one row per logged point."""
        header = ["run", "split", "step", "tokens", "time_s", "loss", "lr", "grad_norm",
                  "tokens_per_s", "val_loss", "perplexity", "bits"]
        rows: list[list] = []
        for run in self.runs:
            if not run.visible:
                continue
            t = run.train
            for i in range(t.size):
                rows.append([run.name, "train", int(t["step"][i]), int(t["tokens"][i]),
                             t["time"][i], t["loss"][i], t["lr"][i], t["grad_norm"][i],
                             t["tok_s"][i], "", "", ""])
            v = run.val
            for i in range(v.size):
                rows.append([run.name, "val", int(v["step"][i]), int(v["tokens"][i]),
                             v["time"][i], "", "", "", "", v["val_loss"][i],
                             v["perplexity"][i], v["bits"][i]])
        columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in header]
        return header, columns

    def point_count(self) -> int:
        return int(np.sum([run.train.size for run in self.runs if run.visible]))
