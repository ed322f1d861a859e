"""The live curves: linked plots of the task's curves (a language model: loss, perplexity,
bits; sequence-to-sequence: loss, token accuracy, exact match), then learning rate, gradient
norm and tokens per second, for every visible run, with x as steps, tokens or wall time.

Which task curves there are is declared by each task's config (core.config.tasks.Curve), so
the view draws a new task's metrics without knowing the task. Runs of different tasks never
share a plot: one task's runs are shown at a time, picked with a tab per task (task_tabs).

Each run draws its raw training curve faint behind an EMA-smoothed one, validation points on
top, and a red dashed line where the divergence guard rolled back. `redraw()` only touches runs
whose data changed since the last call; the panel calls it from a ~30 Hz timer, never per
event. Each curve is decimated to about two points per pixel column (lows and highs kept), and
the ranges follow the data in steps (curve_ranges), so 100k points stay smooth. Hovering a
plot shows the step and each visible run's value there (curve_readout).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
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

from workbench.core.config.tasks import DEFAULT_TASK
from workbench.qt.panels.training.curve_drawing import RunDrawing
from workbench.qt.panels.training.curve_ranges import RangeFollower
from workbench.qt.panels.training.curve_readout import CurveReadout
from workbench.qt.panels.training.plot_grid import PlotGrid
from workbench.qt.panels.training.plot_specs import PlotSpec, logged_metrics, plot_specs
from workbench.qt.panels.training.rollback_marks import COLOUR as ROLLBACK_COLOUR
from workbench.qt.panels.training.rollback_marks import RollbackMarks
from workbench.qt.panels.training.series import (
    X_AXES,
    PeakDecimator,
    RunSeries,
    SmoothedCache,
    runs_csv,
)
from workbench.qt.panels.training.task_tabs import TaskTabs
from workbench.qt.widgets.log_axis import log_axes
from workbench.qt.widgets.plot_export import PlotExportBar

TITLE_SIZE = "9pt"
LEFT_AXIS_PX = 52


class CurvesView(RunDrawing, QWidget):
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
        # the plots keep a readable height each and scroll on a small screen, rather than
        # shrinking to their x axes; as many columns as the width holds (plot_grid.py)
        self.scroller = QScrollArea()
        self.grid = PlotGrid(self.graphics, self.scroller)
        self.readout = CurveReadout(self)
        self.plots: dict[str, pg.PlotItem] = {}
        self.specs: tuple[PlotSpec, ...] = ()
        self.unit = "token"
        self.task_tabs = TaskTabs()
        self.task_tabs.chosen.connect(self._task_chosen)
        self._zoom_redraw = QTimer(self, singleShot=True, interval=50)
        self._zoom_redraw.timeout.connect(self.redraw)
        self.follow = QCheckBox("Follow")
        self.follow.setChecked(True)
        self._build_plots(plot_specs([DEFAULT_TASK]))
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
        layout.addWidget(self.task_tabs)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        # sideways only when zoomed text makes the plots' titles and ticks wider than the view
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroller.setWidget(self.graphics)
        layout.addWidget(self.scroller, 1)
        # Over the empty plots, not above them: showing or hiding a line in the layout resized
        # every plot, and their repaint stalled the window when a run's first step arrived
        self.hint = QLabel("Press Train to start a run, or tick a past run in the list to see "
                           "its curves.", self.scroller, wordWrap=True)
        self.hint.setStyleSheet("color: #555; background: rgba(255, 255, 255, 220); "
                                "border: 1px solid #ccc; padding: 4px;")
        self.hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        legend = QLabel("solid: training (smoothed) · faint: raw · dots: validation · "
                        "star: best validation · diamond: test figure · "
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
        """(Re)make the plots for `specs`, x-linked to the loss, in the grid's columns."""
        self.graphics.clear()
        for key in list(self._items):
            self._items.pop(key)
        self._drawn.clear()
        self._val_drawn.clear()
        self._colours.clear()
        self.specs = specs
        self.plots = {}
        for index, spec in enumerate(specs):
            plot = self.graphics.addPlot(row=index, col=0, axisItems=log_axes("left"))
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
        following = self.follow.isChecked()
        self.follower = RangeFollower([self.plots[s.key] for s in specs if s.result is None],
                                      on_manual=self._stopped_following)
        self.follower.following = following
        self.plots["loss"].vb.sigXRangeChanged.connect(self._view_moved)
        self.grid.set_plots(list(self.plots.values()))
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
        with QSignalBlocker(self.follow):
            self.follow.setChecked(False)
        self._view_moved()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        # centred on the first row of (empty) plots, clear of their titles
        width = max(120, min(520, self.scroller.width() - 24))
        height = self.hint.heightForWidth(width)
        self.hint.setGeometry((self.scroller.width() - width) // 2,
                              max(28, self.scroller.height() // 4 - height // 2), width, height)

    def shows(self, run: RunSeries) -> bool:
        """Whether `run` is drawn: ticked, and of the task whose tab is current."""
        return run.visible and run.task == self.task_tabs.task

    def _task_chosen(self, _task: str) -> None:
        self._drawn.clear()
        self._refit = True
        self.redraw()

    def show_task(self, task: str) -> None:
        """Bring `task`'s tab forward (a run of it starts training here)."""
        if task != self.task_tabs.task:
            self.task_tabs.task = task
            self._task_chosen(task)

    def redraw(self) -> None:
        """Push changed runs' data into their curves; remove curves of runs no longer listed;
        then move the ranges if the data left them (see curve_ranges)."""
        counts: dict[str, int] = {}
        for run in self.runs:
            if run.visible:
                counts[run.task] = counts.get(run.task, 0) + 1
        task = self.task_tabs.show_tasks(counts)
        self.hint.setVisible(not any(self.shows(run) and run.train.size for run in self.runs))
        specs = plot_specs([task], logged_metrics(self.runs, task))
        if counts and specs != self.specs:
            self._build_plots(specs)
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
                    if kind in ("raw", "smooth", "val", "test"):
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

    def _view_moved(self) -> None:
        """Redecimate for the new view (coalesced: a drag moves the view many times)."""
        if not self.follower.following:
            self._drawn.clear()
            self._zoom_redraw.start()

    def csv_data(self) -> tuple[list[str], list[list]]:
        return runs_csv([run for run in self.runs if self.shows(run)])

    def point_count(self) -> int:
        return int(np.sum([run.train.size for run in self.runs if self.shows(run)]))
