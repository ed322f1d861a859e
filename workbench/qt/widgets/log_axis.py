"""A plot axis whose logarithmic mode labels whole decades only (1, 10, 10², ...).

pyqtgraph's own log axis labels every minor tick (2·10¹, 3·10¹, ... 9·10¹); in the upper part
of each decade those ticks sit a few pixels apart and their labels run together into an
unreadable smear. `DecadeLogAxis` keeps the minor ticks as unlabelled grid lines and puts text
on the decades. When fewer than two decades are in view (a loss between 2 and 8, say) decade
labels alone would leave the axis bare, so it labels the 1-2-5 steps instead, and the other
steps only where pyqtgraph's own crowding check finds room. A view narrower still (a loss
between 1.55 and 1.75 holds no m·10^k at all) gets round values at a 1-2-5 step of their own
(1.55, 1.60, ...), written with the decimals that step needs. In linear mode it is a plain
`pg.AxisItem`, so a plot that toggles log mode can keep it.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

MIN_PIXELS_PER_DECADE_FOR_MINOR = 20  # below this the 2..9 grid lines blur into a grey band
MIN_PIXELS_PER_LABEL = {"bottom": 45, "top": 45, "left": 22, "right": 22}  # text width / height
UNLABELLED = 0.0  # the spacing that marks a level of bare grid lines (no real level has it)
LEADING_STEPS = (1, 2, 5)  # labelled first when the view is narrower than two decades
OTHER_STEPS = (3, 4, 6, 7, 8, 9)
ROUND_VALUES = -1.0  # the spacing that marks round values between steps (labelled with decimals)
ROUND_VALUES_WANTED = 4


def _steps_in_view(low: float, high: float, mantissas) -> list[float]:
    """log10(m·10^k) for each mantissa m and decade k that falls inside [low, high]."""
    offsets = np.log10(np.asarray(mantissas, dtype=float))
    values = [k + off for k in range(math.floor(low), math.ceil(high) + 1) for off in offsets]
    return [float(v) for v in values if low <= v <= high]


def _round_values(low: float, high: float) -> list[float]:
    """log10 of round values (a 1-2-5 step apart, about four of them) between 10^low and 10^high."""
    a, b = 10.0 ** low, 10.0 ** high
    wanted = (b - a) / ROUND_VALUES_WANTED
    if not wanted > 0:
        return []
    magnitude = 10.0 ** math.floor(math.log10(wanted))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= wanted * (1 - 1e-9))
    values = np.arange(math.ceil(a / step - 1e-9) * step, b + step * 1e-9, step)
    return [float(v) for v in np.log10(values[values > 0])]


def _round_labels(values) -> list[str]:
    """Labels of `_round_values`: as many decimals as the step between them needs."""
    linear = 10.0 ** np.asarray(values, dtype=float)
    step = float(np.min(np.diff(linear))) if len(linear) > 1 else float(linear[0] or 1)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return [f"{v:.{decimals}f}" for v in linear]


def decade_levels(low: float, high: float, pixels: float, min_label_pixels: float):
    """Tick levels [(spacing, log10 values), ...] for a log axis showing [low, high].

    The first level carries the labels; a level whose spacing is UNLABELLED is grid lines only.
    """
    low, high = sorted((low, high))
    decades = list(range(math.ceil(low), math.floor(high) + 1))
    if len(decades) < 2:
        leading = _steps_in_view(low, high, LEADING_STEPS)
        others = _steps_in_view(low, high, OTHER_STEPS)
        if len(leading) + len(others) < 2:  # not even two steps: round values instead
            return [(ROUND_VALUES, _round_values(low, high))]
        return [(None, leading), (None, others)]
    pixels_per_decade = pixels / max(high - low, 1e-9)
    every = max(1, math.ceil(min_label_pixels / max(pixels_per_decade, 1e-9)))
    labelled = [d for d in decades if d % every == 0]
    if len(labelled) < 2:  # a very long range on a short axis: keep the two ends readable
        labelled = [decades[0], decades[-1]]
    minor = [float(d) for d in decades if d not in labelled]
    if pixels_per_decade >= MIN_PIXELS_PER_DECADE_FOR_MINOR:
        minor += _steps_in_view(low, high, (2, 3, 4, 5, 6, 7, 8, 9))
    return [(float(every), [float(d) for d in labelled]), (UNLABELLED, sorted(minor))]


class DecadeLogAxis(pg.AxisItem):
    """An axis that, in log mode, labels decades and leaves minor ticks as plain grid lines."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802 (pyqtgraph's name)
        return decade_levels(minVal / self.scale, maxVal / self.scale, size,
                             MIN_PIXELS_PER_LABEL[self.orientation])

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph's name)
        if spacing == UNLABELLED:
            return [""] * len(values)
        if spacing == ROUND_VALUES and len(values):
            return _round_labels(values)
        return super().logTickStrings(values, scale, spacing)


def log_axes(*sides: str) -> dict[str, DecadeLogAxis]:
    """`axisItems=` for a PlotWidget or PlotItem: decade-labelled axes on the given sides."""
    return {side: DecadeLogAxis(side) for side in sides or ("left", "bottom")}
