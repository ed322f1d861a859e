"""How one run is drawn on the curves view's plots: its persistent curve items (faint raw,
smoothed line, validation dots, a task's structured result), decimated to about two points
per pixel column, and, once the user has zoomed, only the stretch in view. A mixin of
CurvesView, which owns the state it uses (plots, specs, the runs' items and caches)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from workbench.qt.panels.training.curve_item import CurveItem
from workbench.qt.panels.training.plot_specs import PlotSpec
from workbench.qt.panels.training.series import (
    PeakDecimator,
    RunSeries,
    SmoothedCache,
    metric_source,
)

EMPTY = np.empty(0)
LINE_WIDTH = 2
DOT_PX = 6
MARKER_PX = 13  # the best validation's star and the test figure's diamond


class RunDrawing:
    """Needs: plots, specs, x_axis, smoothing, follower, rollbacks, and the dicts _items,
    _colours, _drawn, _val_drawn, _smoothed, _decimators, _refit; and _remove(key)."""

    def _curve(self, run: RunSeries, metric: str, kind: str) -> CurveItem:
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
            else:  # validation or a result: a dashed line through dots
                item = CurveItem(pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine),
                                 dot_size=DOT_PX)
            self.plots[metric].addItem(item)
            items[(metric, kind)] = item
        return item

    def _draw(self, run: RunSeries) -> None:
        shown = self.shows(run)
        if not shown or self._colours.get(run.key, run.colour) != run.colour:
            self._remove(run.key)
            self._refit = True
            self._drawn[run.key] = run.version
            if not shown:
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
                scale = spec.scale  # a share drawn in percent (the clip rate)
                self._curve(run, spec.key, "raw").setData(raw_x, scale * view(raw_y))
                self._curve(run, spec.key, "smooth").setData(line_x, scale * view(line_y))
            if spec.val and val_changed and spec.val in run.val:
                self._curve(run, spec.key, "val").setData(run.val[x_key],
                                                          spec.scale * run.val[spec.val])
            if spec.result is not None and val_changed:
                self._draw_result(run, spec)
        if val_changed or run.test is not None:
            self._draw_best_and_test(run, x_key)
        self._draw_clip_threshold(run)
        self.rollbacks.show(run, x_key)

    def _draw_clip_threshold(self, run: RunSeries) -> None:
        """A dashed line in the run's colour at its clipping threshold on the gradient-norm
        plot: above it a step's gradient is scaled down to that norm (the clip-rate plot
        counts how often). The y range follows the curves, not the line."""
        items = self._items.setdefault(run.key, {})
        if run.grad_clip <= 0 or ("grad_norm", "clip") in items or "grad_norm" not in self.plots:
            return
        colour = pg.mkColor(run.colour)
        line = pg.InfiniteLine(run.grad_clip, angle=0, pen=pg.mkPen(
            colour, width=1.5, style=Qt.PenStyle.DashDotLine),
            label=f"clip {run.grad_clip:g}", labelOpts={"color": colour, "position": 0.05})
        line.setToolTip(f"{run.name}: gradients with ‖g‖₂ above {run.grad_clip:g} are scaled "
                        "down to it before the step")
        self.plots["grad_norm"].addItem(line)
        items[("grad_norm", "clip")] = line

    def _marker(self, run: RunSeries, kind: str, symbol: str) -> pg.ScatterPlotItem:
        items = self._items.setdefault(run.key, {})
        item = items.get(("loss", kind))
        if item is None:
            item = pg.ScatterPlotItem(symbol=symbol, size=MARKER_PX, pen=pg.mkPen("k", width=1),
                                      brush=pg.mkBrush(run.colour))
            item.setZValue(10)  # above the curves
            self.plots["loss"].addItem(item)
            items[("loss", kind)] = item
        return item

    def _draw_best_and_test(self, run: RunSeries, x_key: str) -> None:
        """On the loss plot: a star at the best validation (the 'best' checkpoint) and a
        diamond at the test figure of that checkpoint, at the same x, so the gap between
        validation and unseen test text shows; over-fitting shows as the dots rising after
        the star."""
        best = run.best_validation()
        if best is not None:
            index, loss = best
            self._marker(run, "best", "star").setData([run.val[x_key][index]], [loss])
        test = run.test
        if test is None or "step" not in run.val:
            return
        steps = run.val["step"]
        match = np.flatnonzero(steps == test.checkpoint_step)
        if len(match):
            x = run.val[x_key][match[-1]]
        elif run.train.size:
            x = run.train[x_key][-1]
        else:
            return
        self._marker(run, "test", "d").setData([x], [test.test_loss])

    def _draw_result(self, run: RunSeries, spec: PlotSpec) -> None:
        """The run's latest structured result as a line with dots (x against y)."""
        latest = next((r[spec.key] for _, r in reversed(run.results) if spec.key in r), None)
        if latest is None:
            return
        x = np.asarray(latest[spec.result.x], dtype=float)
        y = spec.scale * np.asarray(latest[spec.result.y], dtype=float)
        self._curve(run, spec.key, "result").setData(x, y)
        if spec.result.reference and spec.result.reference in latest:  # the truth, grey
            items = self._items.setdefault(run.key, {})
            truth = items.get((spec.key, "reference"))
            if truth is None:
                truth = CurveItem(pg.mkPen("#8c8c8c", width=2))
                truth.setZValue(-1)  # under the run's own line
                self.plots[spec.key].addItem(truth)
                items[(spec.key, "reference")] = truth
            truth.setData(x, spec.scale * np.asarray(latest[spec.result.reference], float))

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
