"""Hover read-out on the training curves: where the mouse is, a vertical line through every
plot and, in the plot under it, the step (or tokens, or time) and each visible run's value.

The value is the logged training value nearest the mouse's x (the raw point, not the smoothed
line), and the nearest validation value on plots that have one, each in its run's colour.
Mouse moves are coalesced to ~30 Hz, and a look-up is a binary search per run and column.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt

from workbench.qt.panels.training.series import X_AXES, RunSeries, metric_source


def nearest(x: np.ndarray, at: float) -> int:
    """Index of the value of the sorted `x` nearest `at` (-1 for an empty column)."""
    if not len(x):
        return -1
    i = int(np.searchsorted(x, at))
    if i == len(x) or i > 0 and at - x[i - 1] <= x[i] - at:
        i -= 1
    return i


def _number(value: float) -> str:
    if not np.isfinite(value):
        return str(value)
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


class CurveReadout(QObject):
    """Owned by the CurvesView; `attach(plots, specs)` after the plots are (re)built."""

    def __init__(self, view) -> None:
        super().__init__(view)
        self.view = view
        self.lines: dict[str, pg.InfiniteLine] = {}
        self.label: pg.TextItem | None = None
        self._proxy = None
        self.text = ""  # what the label shows (for tests)

    def attach(self, plots: dict[str, pg.PlotItem]) -> None:
        if self.label is not None and self.label.scene() is not None:
            self.label.scene().removeItem(self.label)  # the plots were made anew
        self.lines = {}
        for key, plot in plots.items():
            line = pg.InfiniteLine(angle=90, movable=False,
                                   pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DotLine))
            line.setVisible(False)
            plot.addItem(line, ignoreBounds=True)
            self.lines[key] = line
        # in the scene, not in a plot: a plot would cut off a box wider than itself
        self.label = pg.TextItem(anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 235),
                                 border=pg.mkPen("#bbbbbb"))
        self.label.setZValue(50)
        self.label.setVisible(False)
        scene = self.view.graphics.scene()
        scene.addItem(self.label)
        self._proxy = pg.SignalProxy(scene.sigMouseMoved, rateLimit=30, slot=self._moved)

    def _moved(self, args) -> None:
        self.show_at(args[0])

    def plot_at(self, scene_pos) -> tuple[str, pg.PlotItem] | None:
        for key, plot in self.view.plots.items():
            if plot.vb.sceneBoundingRect().contains(scene_pos):
                return key, plot
        return None

    def show_at(self, scene_pos) -> None:
        found = self.plot_at(scene_pos)
        if found is None:
            self.hide()
            return
        key, plot = found
        x = plot.vb.mapSceneToView(scene_pos).x()
        self.show_x(key, x)

    def show_x(self, key: str, x: float) -> str:
        """Put the line at `x` on every plot and the values of plot `key` in the label."""
        plot = self.view.plots[key]
        spec = next(s for s in self.view.specs if s.key == key)
        x_key = self.view.x_axis.currentData()
        rows = []
        for run in self.view.runs:
            if self.view.shows(run):
                rows += self._run_rows(run, spec, x_key, x)
        if not rows:
            self.hide()
            return ""
        for line in self.lines.values():
            line.setPos(x)
            line.setVisible(True)
        where = X_AXES[x_key].split(" (")[0]
        head = f"{where} {int(round(x)) if x_key == 'step' else _number(x)}"
        self.text = "\n".join([head] + [plain for plain, _ in rows])
        body = "<br>".join(rich for _, rich in rows)
        self.label.setHtml(f"<div style='color:#222'>{html.escape(head)}<br>{body}</div>")
        self._place(plot, x)
        self.label.setVisible(True)
        return self.text

    def _place(self, plot: pg.PlotItem, x: float) -> None:
        """Top of the plot, on the side away from the line, kept inside the curves' area."""
        box = plot.vb.sceneBoundingRect()
        line_x = plot.vb.mapViewToScene(pg.Point(x, 0)).x()
        size = self.label.boundingRect()
        left = line_x + 8 if line_x < box.center().x() else line_x - 8 - size.width()
        area = self.view.graphics.scene().sceneRect()
        left = min(max(left, area.left()), area.right() - size.width())
        self.label.setPos(left, box.top())

    def _run_rows(self, run: RunSeries, spec, x_key: str, x: float) -> list[tuple[str, str]]:
        rows = []
        colour = html.escape(run.colour)
        name = html.escape(run.name)
        if spec.train is not None and run.train.size:
            column, view = metric_source(spec.train)
            i = nearest(run.train[x_key], x)
            if i >= 0:
                value = float(view(run.train[column][i: i + 1])[0])
                step = int(run.train["step"][i])
                rows.append((f"{run.name}: {_number(value)} (step {step})",
                             f"<span style='color:{colour}'>■</span> {name}: "
                             f"<b>{_number(value)}</b> <small>(step {step})</small>"))
        if spec.val is not None and run.val.size and spec.val in run.val:
            i = nearest(run.val[x_key], x)
            if i >= 0:
                value = float(spec.scale * run.val[spec.val][i])
                step = int(run.val["step"][i])
                rows.append((f"{run.name} validation: {_number(value)} (step {step})",
                             f"<span style='color:{colour}'>●</span> {name} validation: "
                             f"<b>{_number(value)}</b> <small>(step {step})</small>"))
        return rows

    def hide(self) -> None:
        for line in self.lines.values():
            line.setVisible(False)
        if self.label is not None:
            self.label.setVisible(False)
