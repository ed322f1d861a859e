"""Plot ranges that follow growing curves in steps instead of on every point.

pyqtgraph's auto-range moves a plot's range whenever a point arrives. A moved range makes the
axes lay out their ticks, labels and grid again, and that was most of a live redraw's cost:
six plots took 40-60 ms per update on a 2-core machine, with 100 points or with 100k. Here a range
changes only when the data leaves it, or when the data fills too little of it. In between, the
axes' cached pictures are reused and an update costs only its curves. The headroom also stops
the axes creeping a little at every update.

Panning or zooming a plot by hand turns following off. The view's Follow box turns it back on.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

X_HEADROOM = 0.25  # room on the right for the next points, as a share of the data's extent
Y_MARGIN = 0.08  # room above and below the data, as a share of its extent
MIN_FILL = 0.6  # refit when the data covers less than this share of the range


def data_bounds(items: list) -> tuple[float, float, float, float] | None:
    """(x_min, x_max, y_min, y_max) of the items' data in view coordinates (log10 on a log
    axis), from each item's own `dataBounds`, which it keeps up to date as data arrives."""
    xs, ys = [], []
    for item in items:
        x_bounds, y_bounds = item.dataBounds(0), item.dataBounds(1)
        if None in x_bounds or None in y_bounds:
            continue
        xs.append(x_bounds)
        ys.append(y_bounds)
    if not xs:
        return None
    return (min(a for a, _ in xs), max(b for _, b in xs),
            min(a for a, _ in ys), max(b for _, b in ys))


def followed_x(low: float, high: float, current: tuple[float, float]) -> tuple[float, float]:
    """The x range to show: the current one while the data fits it well, else the data's
    extent with headroom on the right (so the next points arrive without a change)."""
    extent = max(high - low, 1e-9)
    if current[0] <= low and high <= current[1] and extent >= MIN_FILL * (current[1] - current[0]):
        return current
    return low, high + X_HEADROOM * extent


def followed_y(low: float, high: float, current: tuple[float, float]) -> tuple[float, float]:
    """The y range to show: the current one while the data fits it well, else the data's
    extent with a margin on both sides."""
    extent = high - low
    if extent <= 0:
        extent = max(abs(high), 1.0) * 0.1
    if current[0] <= low and high <= current[1] and extent >= MIN_FILL * (current[1] - current[0]):
        return current
    return low - Y_MARGIN * extent, high + Y_MARGIN * extent


class RangeFollower:
    """Keeps a set of plots (x-linked to the first) showing their data, refitting in steps."""

    def __init__(self, plots: list[pg.PlotItem], on_manual=None) -> None:
        self.plots = plots
        self.following = True
        self._on_manual = on_manual
        self._setting = False
        for plot in plots:
            plot.hideButtons()  # the "A" button would turn pyqtgraph's per-point auto-range on
            plot.vb.disableAutoRange()
            plot.vb.sigRangeChangedManually.connect(self._manual)

    def _manual(self, *_) -> None:
        if self._setting or not self.following:
            return
        self.following = False
        if self._on_manual:
            self._on_manual()

    def follow(self, items: dict[pg.PlotItem, list], force: bool = False) -> None:
        """Refit what needs it (everything when `force`: new axis, scale or run set), from
        the data of `items` per plot."""
        if not self.following:
            return
        self._setting = True
        try:
            x_low, x_high = math.inf, -math.inf
            for plot in self.plots:
                if force:  # a log switch turns pyqtgraph's per-point auto-range back on
                    plot.vb.disableAutoRange()
                bounds = data_bounds(items.get(plot, []))
                if bounds is None:
                    continue
                x_low, x_high = min(x_low, bounds[0]), max(x_high, bounds[1])
                current = (-math.inf, math.inf) if force else tuple(plot.vb.viewRange()[1])
                y_range = followed_y(bounds[2], bounds[3], current)
                if force or y_range != current:
                    plot.vb.setYRange(*y_range, padding=0)
            if x_low <= x_high:
                master = self.plots[0].vb
                current = (-math.inf, math.inf) if force else tuple(master.viewRange()[0])
                x_range = followed_x(x_low, x_high, current)
                if force or x_range != current:
                    master.setXRange(*x_range, padding=0)
        finally:
            self._setting = False
