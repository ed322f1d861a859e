"""Tiny layout helpers: a widget holding others in a column or a row."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QSlider, QVBoxLayout, QWidget

from workbench.qt import plot_theme  # noqa: F401 - dark plot ink before any plot

# A plot is readable down to this height (title, a few y ticks apart, the curve, the x axis):
# below it the panel scrolls instead of squeezing the plot. Zoom scales it (qt/zoom.py).
PLOT_MIN_HEIGHT = 150


def readable(plot: QWidget, rows: int = 1) -> QWidget:
    """Give a plot widget (of `rows` plots stacked) the readable minimum height (a layout of
    plots has margins around them too)."""
    margins = 20 if isinstance(plot, pg.GraphicsLayoutWidget) else 0
    plot.setMinimumHeight(rows * PLOT_MIN_HEIGHT + margins)
    return plot


def column(*widgets: QWidget, stretch_plots: bool = True) -> QWidget:
    """Widgets top to bottom; plots take the spare height."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(2, 2, 2, 2)
    for widget in widgets:
        grows = stretch_plots and isinstance(widget, (pg.PlotWidget, pg.GraphicsLayoutWidget))
        layout.addWidget(widget, 1 if grows else 0)
    return box


def row(*widgets: QWidget) -> QWidget:
    """Widgets left to right; sliders take the spare width."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1 if isinstance(widget, QSlider) else 0)
    return box


# Okabe–Ito: a qualitative palette distinguishable with the common colour-vision deficiencies
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")


def series_colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def set_title(plot, text: str) -> None:
    """A plot's title, set only when it changes: setting it lays the plot out again (and
    undoes the zoom's title size until the next rescan), which a panel redrawn on every probe
    paid for nothing while a model trained."""
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    if item.titleLabel.text != text or not item.titleLabel.isVisible():
        item.setTitle(text)
