"""The figure a worked computation carries (`core.worked.records.Figure`): its curves, one small
plot per group of curves (a function beside its derivative) or all on one, a derivative dashed
in its function's colour, with PNG, SVG and CSV export. Hidden while the computation shown has
no figure."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from workbench.core.worked.records import Figure
from workbench.qt.widgets.boxes import readable, series_colour
from workbench.qt.widgets.plot_export import PlotExportBar


class WorkedFigure(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.graphics.setObjectName("worked-figure")
        readable(self.graphics)
        self.plots: dict[str, pg.PlotItem] = {}  # group -> its plot
        self.figure: Figure | None = None
        self.export = PlotExportBar(self.graphics, data=self.csv_data, name="worked-figure")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.export)
        self.setVisible(False)

    def show_figure(self, figure: Figure | None) -> None:
        self.figure = figure
        self.setVisible(figure is not None)
        if figure is None:
            return
        self.graphics.clear()
        self.plots.clear()
        self.graphics.addLabel(figure.title, row=0, col=0, colspan=8, size="11pt")
        groups = list(dict.fromkeys(curve.group for curve in figure.curves))
        colours: dict[str, str] = {}
        for curve in figure.curves:
            plot = self.plots.get(curve.group)
            if plot is None:
                plot = self.graphics.addPlot(row=1, col=groups.index(curve.group),
                                             title=curve.group or None)
                plot.showGrid(x=True, y=True, alpha=0.2)
                plot.setLabel("bottom", figure.x_label)
                if len(self.plots) == 0:
                    plot.setLabel("left", figure.y_label)
                if len(groups) == 1:
                    plot.addLegend(offset=(-10, 10), brush=pg.mkBrush(255, 255, 255, 210))
                self.plots[curve.group] = plot
            colour = colours.get(curve.colour_of) or series_colour(
                sum(1 for c in figure.curves[:figure.curves.index(curve)] if not c.colour_of))
            colours[curve.label] = colour
            x, y = np.asarray(curve.x, float), np.asarray(curve.y, float)
            if curve.bars:  # bar series side by side around each x
                series = [c for c in figure.curves if c.bars and c.group == curve.group]
                width = 0.8 / len(series)
                shift = (series.index(curve) - (len(series) - 1) / 2) * width
                bars = pg.BarGraphItem(x=x + shift, height=y, width=width * 0.9,
                                       brush=colour, name=curve.label)
                plot.addItem(bars)  # (named: the legend lists it)
                plot.getAxis("bottom").setTicks([[(float(v), f"{v:g}") for v in x]])
                continue
            style = Qt.PenStyle.DashLine if curve.dashed else Qt.PenStyle.SolidLine
            plot.plot(x, y, pen=pg.mkPen(colour, width=2, style=style), name=curve.label)

    def curve_items(self) -> list[pg.PlotDataItem | pg.BarGraphItem]:
        return [item for plot in self.plots.values() for item in plot.items
                if isinstance(item, (pg.PlotDataItem, pg.BarGraphItem))]

    def csv_data(self) -> tuple[list[str], list[list]]:
        """One x column, then one column per curve (curves of one figure share their x)."""
        if self.figure is None or not self.figure.curves:
            return [], []
        first = self.figure.curves[0]
        header = [self.figure.x_label] + [curve.label for curve in self.figure.curves]
        columns = [list(map(float, first.x))] + [list(map(float, curve.y))
                                                 for curve in self.figure.curves]
        return header, columns
