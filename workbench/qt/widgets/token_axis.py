"""An axis that labels every token of a heatmap: smaller text, or turned on its side, never
skipped.

pyqtgraph's axis draws each label at one font and drops those that leave its box; the heatmap
therefore thinned its labels to every 2nd or 3rd token, and a student could not tell which
character a row was ("h t l g t t r u h y n e", issue 31 defect 7). This axis fits the font to
the cell (down to MIN_PX), and on the bottom axis turns the labels upright when they are wider
than a cell even at that size. Hovering a cell names it as well (Heatmap's tooltip).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

MIN_PX = 7  # the smallest label text in pixels; below it letters are guesses


class TokenAxis(pg.AxisItem):
    """The left or bottom axis of a heatmap whose ticks (setTicks) are one per cell."""

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self._font: QFont | None = None  # the tick labels' font, chosen at each layout
        self.upright = False  # bottom labels drawn turned 90° (they are wider than a cell)
        self.label_px = 0.0  # the label text size chosen at the last layout

    def labels(self) -> list[tuple[float, str]]:
        levels = self._tickLevels or []
        return list(levels[0]) if levels else []

    def _cell_px(self, count: int) -> float:
        """Pixels per cell along this axis at its current size and range."""
        view = self.linkedView()
        length = self.boundingRect().width() if self.orientation in ("top", "bottom") \
            else self.boundingRect().height()
        if view is not None:
            geometry = view.sceneBoundingRect()
            length = geometry.width() if self.orientation in ("top", "bottom") \
                else geometry.height()
        low, high = self.range
        span = abs(high - low) or max(count, 1)
        return length / span

    def _fit(self) -> QFont:
        """The label font for the cells as they are now; sets `upright` and `label_px`."""
        font = QFont(self.style["tickFont"] or self.font())
        base = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * 4 / 3
        labels = [text for _, text in self.labels()]
        cell = self._cell_px(len(labels))
        if not labels or cell <= 0:
            self.upright, self.label_px = False, base
            return font
        size = base
        if self.orientation in ("left", "right"):
            size = max(MIN_PX, min(base, cell * 0.9))  # one line of text per row
            self.upright = False
        else:
            font.setPixelSize(max(1, round(base)))
            widest = max(QFontMetricsF(font).horizontalAdvance(t) for t in labels) or 1.0
            fitted = base * cell * 0.95 / widest
            self.upright = fitted < MIN_PX
            size = max(MIN_PX, min(base, cell * 0.9 if self.upright else fitted))
        font.setPixelSize(max(1, round(size)))
        self.label_px = size
        return font

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph override
        specs = super().generateDrawSpecs(p)
        if specs is None or not self.labels():
            return specs
        axis_spec, tick_specs, _ = specs
        font = self._fit()
        metrics = QFontMetricsF(font)
        bounds = self.mapRectFromParent(self.geometry())  # (boundingRect adds margins)
        low, high = self.range
        span = (high - low) or 1.0
        offset = max(0, self.style["tickLength"]) + 2
        texts = []
        every = self._every()
        for index, (value, text) in enumerate(self.labels()):
            if index % every:
                continue
            width, height = metrics.horizontalAdvance(text), metrics.height()
            if self.orientation in ("left", "right"):
                # an inverted view (row 0 on top) gives a reversed range: the same formula
                y = bounds.bottom() - (value - low) / span * bounds.height()
                rect = QRectF(bounds.right() - offset - width, y - height / 2, width, height)
                flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            else:
                x = bounds.left() + (value - low) / span * bounds.width()
                if self.upright:  # its rectangle in the turned frame: see drawPicture
                    rect = QRectF(x, bounds.top() + offset, width, height)
                else:
                    rect = QRectF(x - width / 2, bounds.top() + offset, width, height)
                flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
            texts.append((rect, flags | Qt.TextFlag.TextDontClip, text))
        self._font = font
        self._reserve(metrics, [t for _, t in self.labels()])
        return axis_spec, tick_specs, texts

    def _every(self) -> int:
        """1 (every label) for tokens. Unit numbers (0…127) down a short axis are thinned to
        what fits a line apart: they count up, so the missing ones are implied, and hovering
        a cell names it."""
        labels = self.labels()
        if self.orientation not in ("left", "right") or not all(
                t.isdigit() for _, t in labels):
            return 1
        cell = self._cell_px(len(labels))
        return max(1, int(-(-MIN_PX * 1.4 // max(cell, 1e-3))))

    def _reserve(self, metrics: QFontMetricsF, labels: list[str]) -> None:
        """Make the axis as wide (left) or tall (bottom) as its longest label needs."""
        widest = max((metrics.horizontalAdvance(t) for t in labels), default=0.0)
        if self.orientation in ("left", "right"):
            need = widest
        else:
            need = widest if self.upright else metrics.height()
        self._updateMaxTextSize(int(need) + 2)

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802 - override
        if self._font is None:
            return super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setFont(self._font)
        p.setPen(self.textPen())
        for rect, flags, text in textSpecs:
            if self.upright:  # read bottom to top, ending at the axis, centred on the cell
                p.save()
                p.translate(QPointF(rect.left(), rect.top()))
                p.rotate(-90)
                p.drawText(QRectF(-rect.width(), -rect.height() / 2, rect.width(),
                                  rect.height()),
                           int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                           text)
                p.restore()
            else:
                p.drawText(rect, int(flags), text)
