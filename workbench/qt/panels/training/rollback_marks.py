"""Red dashed lines where the divergence guard rolled a run back (on the loss and gradient-norm
plots), kept per run and redrawn only when a new rollback arrives or the x axis changes."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

MARKED_PLOTS = ("loss", "grad_norm")
COLOUR = "#d62728"


class RollbackMarks:
    def __init__(self, plots: dict[str, pg.PlotItem]) -> None:
        self.plots = plots
        self._lines: dict[str, list[tuple[str, pg.InfiniteLine]]] = {}
        self._drawn: dict[str, tuple[int, str]] = {}

    def show(self, run, x_key: str) -> None:
        """Mark every divergence of `run` at its step, tokens or time (as `x_key` says)."""
        if self._drawn.get(run.key) == (len(run.divergences), x_key):
            return
        self.remove(run.key)
        self._drawn[run.key] = (len(run.divergences), x_key)
        lines = self._lines.setdefault(run.key, [])
        for event in run.divergences:
            where = {"step": event.step, "tokens": event.tokens, "time": event.time}[x_key]
            for metric in MARKED_PLOTS:
                line = pg.InfiniteLine(where, angle=90, pen=pg.mkPen(
                    COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                    label="rollback" if metric == "loss" else None,
                    labelOpts={"color": COLOUR, "position": 0.9})
                line.setToolTip(f"Step {event.step}: {event.reason}")
                self.plots[metric].addItem(line)
                lines.append((metric, line))

    def remove(self, key: str) -> None:
        for metric, line in self._lines.pop(key, []):
            self.plots[metric].removeItem(line)
        self._drawn.pop(key, None)

    def count(self, key: str) -> int:
        return len(self._lines.get(key, ()))
