"""The live curves: linked plots of the task's curves (a language model: loss, perplexity,
bits; sequence-to-sequence: loss, token accuracy, exact match), then learning rate, gradient
norm and tokens per second, for every visible run, with x as steps, tokens or wall time.

Which task curves there are is declared by each task's config (core.config.tasks.Curve), so
the view draws a new task's metrics without knowing the task; runs of different tasks shown
together get the union of their curves.

Each run draws its raw training curve faint behind an EMA-smoothed one, validation points on
top, and a red dashed line where the divergence guard rolled back. `redraw()` only touches runs
whose data changed since the last call; the panel calls it from a ~30 Hz timer, never per
event. Each curve is decimated to about two points per pixel column (lows and highs kept), and
the ranges follow the data in steps (curve_ranges), so 100k points stay smooth. Hovering a
plot shows the step and each visible run's value there (curve_readout).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.tasks import DEFAULT_TASK, ResultPlot, curves_of, result_plots_of
from workbench.qt.panels.training.curve_item import CurveItem
from workbench.qt.panels.training.curve_ranges import RangeFollower
from workbench.qt.panels.training.curve_readout import CurveReadout
from workbench.qt.panels.training.rollback_marks import COLOUR as ROLLBACK_COLOUR
from workbench.qt.panels.training.rollback_marks import RollbackMarks
from workbench.qt.panels.training.series import (
    X_AXES,
    PeakDecimator,
    RunSeries,
    SmoothedCache,
    metric_source,
    runs_csv,
)
from workbench.qt.widgets.boxes import readable
from workbench.qt.widgets.log_axis import log_axes
from workbench.qt.widgets.plot_export import PlotExportBar


@dataclass(frozen=True)
class PlotSpec:
    """One plot: its key ("loss" for the loss), the training view drawn as a line (or None),
    the validation metric drawn as dots (or None), its title, whether "Log y" applies, and a
    factor for the values (100 for a share shown in percent)."""

    key: str
    train: str | None
    val: str | None
    title: str
    log_ok: bool = True
    scale: float = 1.0
    result: ResultPlot | None = None  # a structured result, drawn against its own x


TRAINING_PLOTS = (PlotSpec("lr", "lr", None, "Learning rate", log_ok=False),
                  PlotSpec("grad_norm", "grad_norm", None, "Gradient norm before clipping"),
                  PlotSpec("tok_s", "tok_s", None, "Tokens per second"))


def plot_specs(tasks: list[str]) -> tuple[PlotSpec, ...]:
    """The task curves of `tasks` (each once, in order), the tasks' result plots, then the
    training plots (learning rate, gradient norm, tokens per second)."""
    specs: dict[str, PlotSpec] = {}
    results: dict[str, PlotSpec] = {}
    for task in dict.fromkeys(tasks):
        for curve in curves_of(task):
            key = curve.train or curve.metric
            percent = curve.unit == "percent"
            specs.setdefault(key, PlotSpec(key, curve.train, curve.metric,
                                           curve.title + (" (%)" if percent else ""),
                                           curve.log_ok, 100.0 if percent else 1.0))
        for plot in result_plots_of(task):
            percent = plot.unit == "percent"
            results.setdefault(plot.key, PlotSpec(
                plot.key, None, None, plot.title + (" (%)" if percent else ""), False,
                100.0 if percent else 1.0, plot))
    return tuple(specs.values()) + tuple(results.values()) + TRAINING_PLOTS


TITLE_SIZE = "9pt"
EMPTY = np.empty(0)
LINE_WIDTH = 2
LEFT_AXIS_PX = 52


class CurvesView(QWidget):
    def __init__(self, on_error=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[RunSeries] = []
        self._drawn: dict[str, int] = {}
        self._items: dict[str, dict] = {}
        self._colours: dict[str, str] = {}
        self._smoothed: dict[tuple[str, str], SmoothedCache] = {}
        self._val_drawn: dict[str, tuple] = {}
        self._decimators: dict[tuple, PeakDecimator] = {}
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.readout = CurveReadout(self)
        self.plots: dict[str, pg.PlotItem] = {}
        self.specs: tuple[PlotSpec, ...] = ()
        self.unit = "token"
        self._zoom_redraw = QTimer(self, singleShot=True, interval=50)
        self._zoom_redraw.timeout.connect(self.redraw)
        self._build_plots(plot_specs([DEFAULT_TASK]))
        self.follow = QCheckBox("Follow")
        self.follow.setChecked(True)
        self.follow.setToolTip("Keep every curve in view as points arrive. Panning or zooming a "
                               "plot turns this off; tick it to fit the curves again.")
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
        controls.addWidget(self.follow)
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
        # the plots keep a readable height each and scroll on a small screen, rather than
        # shrinking to their x axes
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        # sideways only when zoomed text makes the plots' titles and ticks wider than the view
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroller.setWidget(self.graphics)
        layout.addWidget(self.scroller, 1)
        legend = QLabel("solid: training (smoothed) · faint: raw · dots: validation · "
                        f"<span style='color:{ROLLBACK_COLOUR}'>red dashes: divergence "
                        "rollback</span>")
        legend.setStyleSheet("color: #555;")
        legend.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(legend, 1)
        bottom.addWidget(self.export_bar)
        layout.addLayout(bottom)
        self.x_axis.currentIndexChanged.connect(self._settings_changed)
        self.log_scale.toggled.connect(self._settings_changed)
        self.smoothing.valueChanged.connect(self._settings_changed)
        self.follow.toggled.connect(self._follow_toggled)
        self._refit = True
        self._settings_changed()

    def _build_plots(self, specs: tuple[PlotSpec, ...]) -> None:
        """(Re)make the plots for `specs`, three to a row, x-linked to the loss."""
        self.graphics.clear()
        for key in list(self._items):
            self._items.pop(key)
        self._drawn.clear()
        self._val_drawn.clear()
        self._colours.clear()
        self.specs = specs
        self.plots = {}
        columns = max(3, -(-len(specs) // 2))  # two rows: six plots in three columns
        for index, spec in enumerate(specs):
            plot = self.graphics.addPlot(row=index // columns, col=index % columns,
                                         axisItems=log_axes("left"))
            plot.setTitle(self._title(spec), size=TITLE_SIZE)
            plot.setMinimumWidth(120)
            plot.showGrid(x=True, y=True, alpha=0.2)
            for side in ("left", "bottom"):
                # keep each axis (its ticks, labels and grid) as a pixmap until its range
                # changes: replaying them was a third of every repaint
                plot.getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            # one width for every y axis: x-linking aligns the plots on screen, so a wider
            # axis (0.0020 on the learning rate) would hide the start of that plot's curve
            plot.getAxis("left").setWidth(LEFT_AXIS_PX)
            if spec.result is not None:  # its own x (an input length): fitted to its data
                plot.enableAutoRange(x=True, y=spec.scale == 1.0)
                if spec.scale != 1.0:  # a share in percent: the whole 0-100 % scale
                    plot.setYRange(0, 100, padding=0.04)
            elif self.plots:
                plot.setXLink(self.plots["loss"])
            self.plots[spec.key] = plot
        self.rollbacks = RollbackMarks(self.plots)
        following = getattr(self, "follow", None) is None or self.follow.isChecked()
        self.follower = RangeFollower([self.plots[s.key] for s in specs if s.result is None],
                                      on_manual=self._stopped_following)
        self.follower.following = following
        self.plots["loss"].vb.sigXRangeChanged.connect(self._view_moved)
        readable(self.graphics, rows=(len(specs) + 2) // 3)
        self.readout.attach(self.plots)
        self._refit = True

    def _title(self, spec: PlotSpec) -> str:
        """A language model's loss and bits are per character with a character tokenizer."""
        return spec.title.replace("per token", f"per {self.unit}")

    def set_unit(self, unit: str) -> None:
        self.unit = unit
        for spec in self.specs:
            self.plots[spec.key].setTitle(self._title(spec), size=TITLE_SIZE)

    def set_runs(self, runs: list[RunSeries]) -> None:
        self.runs = runs
        self.redraw()

    def _settings_changed(self, *_) -> None:
        self.smoothing_label.setText(f"{self.smoothing.value() / 100:.2f}")
        self._axes_settings()
        self._drawn.clear()
        self._refit = True
        self.redraw()

    def _axes_settings(self) -> None:
        x_key = self.x_axis.currentData()
        for spec in self.specs:
            plot = self.plots[spec.key]
            plot.setLabel("bottom", spec.result.x_label if spec.result else X_AXES[x_key])
            plot.setLogMode(y=self.log_scale.isChecked() and spec.log_ok)

    def _follow_toggled(self, on: bool) -> None:
        self.follower.following = on
        self._drawn.clear()  # the curves may hold only a zoomed stretch: take the whole run
        self._refit = True
        self.redraw()

    def _stopped_following(self) -> None:
        self.follow.blockSignals(True)
        self.follow.setChecked(False)
        self.follow.blockSignals(False)
        self._view_moved()

    def redraw(self) -> None:
        """Push changed runs' data into their curves; remove curves of runs no longer listed;
        then move the ranges if the data left them (see curve_ranges)."""
        self.hint.setVisible(not any(run.visible and run.train.size for run in self.runs))
        tasks = [run.task for run in self.runs if run.visible]
        if tasks and plot_specs(tasks) != self.specs:
            self._build_plots(plot_specs(tasks))
            self._axes_settings()
        keys = {run.key for run in self.runs}
        changed = False
        for key in [k for k in self._items if k not in keys]:
            self._remove(key)
            changed = self._refit = True
        for run in self.runs:
            if self._drawn.get(run.key) == run.version:
                continue
            self._drawn[run.key] = run.version
            self._draw(run)
            changed = True
        if changed or self._refit:
            items: dict = {}
            for run_items in self._items.values():
                for (metric, kind), item in run_items.items():
                    if kind in ("raw", "smooth", "val"):
                        items.setdefault(self.plots[metric], []).append(item)
            self.follower.follow(items, force=self._refit)
            self._refit = False

    def _remove(self, key: str) -> None:
        items = self._items.pop(key, {})
        for (metric, _), item in items.items():
            self.plots[metric].removeItem(item)
        self._drawn.pop(key, None)
        self._val_drawn.pop(key, None)
        self._colours.pop(key, None)
        self.rollbacks.remove(key)
        for cache in (self._smoothed, self._decimators):
            for stale in [k for k in cache if k[0] == key]:
                del cache[stale]

    def _curve(self, run: RunSeries, metric: str, kind: str) -> pg.PlotDataItem:
        """The run's persistent curve of one kind on one plot (created on first use)."""
        items = self._items.setdefault(run.key, {})
        item = items.get((metric, kind))
        if item is None:
            colour = pg.mkColor(run.colour)
            # lean curve items: the points are decimated already, and pyqtgraph's items'
            # own bookkeeping at paint time cost more than drawing them (see curve_item)
            if kind == "raw":
                colour.setAlpha(60)
                item = CurveItem(pg.mkPen(colour, width=1))
            elif kind == "smooth":
                item = CurveItem(pg.mkPen(colour, width=LINE_WIDTH))
            else:
                item = pg.PlotDataItem(pen=pg.mkPen(colour, width=2,
                                                    style=Qt.PenStyle.DashLine),
                                       symbol="o", symbolSize=6, symbolBrush=colour,
                                       symbolPen=None)
            self.plots[metric].addItem(item)
            items[(metric, kind)] = item
        return item

    def _draw(self, run: RunSeries) -> None:
        if not run.visible or self._colours.get(run.key, run.colour) != run.colour:
            self._remove(run.key)
            self._refit = True
            self._drawn[run.key] = run.version
            if not run.visible:
                return
        self._colours[run.key] = run.colour
        x_key = self.x_axis.currentData()
        smoothing = self.smoothing.value() / 100
        shown = self._shown_slice(run.train[x_key])
        x = run.train[x_key][shown]
        # two points (a low and a high) per pixel column are all a screen can show
        buckets = int(min(1024, max(128, self.plots["loss"].vb.width())))
        val_shown = (x_key, run.val.size)
        val_changed = self._val_drawn.get(run.key) != val_shown
        self._val_drawn[run.key] = val_shown
        drawn = {}  # per training column: loss, perplexity and bits share the loss's points
        for spec in self.specs:
            if spec.train is not None:
                column, view = metric_source(spec.train)
                if column not in drawn:
                    drawn[column] = self._decimated(run, column, x, shown, buckets,
                                                    smoothing if spec.key != "lr" else 0.0)
                raw_x, raw_y, line_x, line_y = drawn[column]
                self._curve(run, spec.key, "raw").setData(raw_x, view(raw_y))
                self._curve(run, spec.key, "smooth").setData(line_x, view(line_y))
            if spec.val and val_changed and spec.val in run.val:
                self._curve(run, spec.key, "val").setData(run.val[x_key],
                                                          spec.scale * run.val[spec.val])
            if spec.result is not None and val_changed:
                self._draw_result(run, spec)
        self.rollbacks.show(run, x_key)

    def _draw_result(self, run: RunSeries, spec: PlotSpec) -> None:
        """The run's latest structured result as a line with dots (x against y)."""
        latest = next((r[spec.key] for _, r in reversed(run.results) if spec.key in r), None)
        if latest is None:
            return
        x = np.asarray(latest[spec.result.x], dtype=float)
        y = spec.scale * np.asarray(latest[spec.result.y], dtype=float)
        self._curve(run, spec.key, "result").setData(x, y)

    def _decimated(self, run: RunSeries, column: str, x: np.ndarray, shown: slice,
                   buckets: int, smoothing: float) -> tuple[np.ndarray, ...]:
        """(raw x, raw y, line x, line y) of one training column, about two points per pixel
        column. With smoothing the line is the EMA (extended incrementally) and the raw curve
        stays behind it; without, the line is the raw values and there is no faint copy."""
        values = run.train[column][shown]
        # appending is the only change that keeps earlier points as they were
        data_key = (run.key, column, shown.start, run.train.size > 0 and run.train["step"][0],
                    len(run.divergences))
        peaks = self._decimator(run.key, column, "raw").indices(values, buckets, data_key)
        if smoothing <= 0:
            return EMPTY, EMPTY, x[peaks], values[peaks]
        cache = self._smoothed.setdefault((run.key, column), SmoothedCache())
        line = cache.get(run.train[column], smoothing, (smoothing,) + data_key[3:])[shown]
        line_peaks = self._decimator(run.key, column, "line").indices(  # a smooth line needs
            line, buckets // 2, data_key + (smoothing,))  # fewer points
        return x[peaks], values[peaks], x[line_peaks], line[line_peaks]

    def _decimator(self, key: str, column: str, kind: str) -> PeakDecimator:
        return self._decimators.setdefault((key, column, kind), PeakDecimator())

    def _shown_slice(self, x: np.ndarray) -> slice:
        """All points while following; once the user has zoomed, the points in view (and one
        beyond each side), so a zoomed-in stretch is decimated on its own and shows its detail.
        x (steps, tokens or time) only grows."""
        if self.follower.following or not len(x):
            return slice(None)
        low, high = self.plots["loss"].vb.viewRange()[0]
        start = max(0, int(np.searchsorted(x, low)) - 1)
        return slice(start, int(np.searchsorted(x, high, side="right")) + 1)

    def _view_moved(self) -> None:
        """Redecimate for the new view (coalesced: a drag moves the view many times)."""
        if not self.follower.following:
            self._drawn.clear()
            self._zoom_redraw.start()

    def csv_data(self) -> tuple[list[str], list[list]]:
        return runs_csv([run for run in self.runs if run.visible])

    def point_count(self) -> int:
        return int(np.sum([run.train.size for run in self.runs if run.visible]))
