"""The training plots' grid: as many columns as the view has room for readable plots.

Three fixed columns needed a sideways scroll bar whenever the text was large: in presentation
mode at 1920 × 1080 one and a half of three plots showed ("Perplexity (" cut), and at
1366 × 768 a task with seven plots put four in a row ("Token accu…"). A plot is readable when
its title fits (the widest title, "Gradient norm ‖g‖₂ before clipping", sets every column's
least width; zoom and presentation mode scale it). When the view is resized or zoomed across
a column's width, the same plots move to the new grid: their curves, ranges and links stay
(the items are moved, not rebuilt).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QScrollArea

from workbench.qt.widgets.boxes import readable

LEAST_PLOT_PX = 180  # a y axis of ticks and room for a curve, at actual size
MARGIN_PX = 12  # between two columns
MAX_COLUMNS = 3  # more, and the plots of one run are too far apart to compare by eye


class PlotGrid(QObject):
    """Places `graphics`' plots in rows of the columns its scroll area's width holds."""

    def __init__(self, graphics: pg.GraphicsLayoutWidget, scroller: QScrollArea) -> None:
        super().__init__(graphics)
        self.graphics = graphics
        self.scroller = scroller
        self.viewport = viewport = scroller.viewport()
        self.plots: list[pg.PlotItem] = []
        self.columns = 0
        # zoomed titles are resized a moment after the font (zoom.py rescans the plots)
        self.after_zoom = QTimer(self, singleShot=True, interval=250)
        self.after_zoom.timeout.connect(self.arrange)
        # a scroll area grows the plots with their least width but did not shrink them back:
        # wrapped into one column at zoom 2 they stayed 1,640 px wide in a 622 px view
        self.shrink = QTimer(self, singleShot=True, interval=400)
        self.shrink.timeout.connect(self.shrink_to_view)
        viewport.installEventFilter(self)
        # and whenever the plots come to need a sideways scroll bar (their axes grew)
        scroller.horizontalScrollBar().rangeChanged.connect(lambda *_: self.after_zoom.start())

    def least_width(self) -> int:
        """The width of the widest title, or of a plot's axis and some curve, whichever is
        more, at the current zoom."""
        scale = self.graphics.fontMetrics().height() / 16  # about 16 px at actual size
        least = [int(LEAST_PLOT_PX * scale)]
        for plot in self.plots:  # its title, and what its axes and ticks ask of the layout
            least += [int(plot.titleLabel.minimumWidth()),
                      int(plot.effectiveSizeHint(Qt.SizeHint.MinimumSize).width())]
        return max(least) + MARGIN_PX

    def columns_for(self, width: int) -> int:
        """As many columns as `width` pixels hold, 1 to MAX_COLUMNS."""
        return max(1, min(MAX_COLUMNS, len(self.plots) or 1, width // self.least_width()))

    def set_plots(self, plots: list[pg.PlotItem]) -> None:
        """The plots just added to the layout, in reading order."""
        self.plots = list(plots)
        self.columns = 0
        self.arrange()

    def arrange(self) -> None:
        columns = self.columns_for(self.viewport.width())
        if columns == self.columns or not self.plots:
            self.shrink.start()  # the columns stay, but the view may have narrowed
            return
        layout = self.graphics.ci
        for plot in self.plots:
            if plot in layout.items:
                layout.removeItem(plot)
        for index, plot in enumerate(self.plots):
            layout.addItem(plot, row=index // columns, col=index % columns)
        self.columns = columns
        readable(self.graphics, rows=-(-len(self.plots) // columns))
        self.shrink.start()

    def shrink_to_view(self) -> None:
        fits = max(self.viewport.width(), self.graphics.minimumWidth())
        if self.graphics.width() > fits:
            self.graphics.resize(fits, self.graphics.height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.viewport and event.type() == QEvent.Type.Resize:
            self.arrange()
        elif watched is self.viewport and event.type() in (QEvent.Type.FontChange,
                                                           QEvent.Type.ApplicationFontChange):
            self.after_zoom.start()
        return False
