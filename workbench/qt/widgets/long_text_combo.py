"""A combo box for items longer than the box: the box cuts the current one with "…" (and
shows it whole as its tooltip), the list opens as wide as its longest item.

A narrow dock keeps its combo box narrow (the lessons' titles are up to 480 px long and the
Lessons dock leaves the box ~320 px at 1366 × 768): Qt clipped the current title mid-word
without a sign that it goes on, and styles that open the list in place (Windows) open it at the
box's width, cutting every long item. The list is a popup window, so it may be wider than the
dock: it is sized when it opens, in the font of that moment (a zoom changes the widths).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget


class LongTextCombo(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.currentTextChanged.connect(self.setToolTip)

    def shown_text(self) -> str:
        """The current item as the box draws it: cut with "…" to the room it has."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        room = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(self.currentText(), Qt.TextElideMode.ElideRight,
                                             room.width() - 4)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def popup_width(self) -> int:
        """The width that shows every item whole: the widest text, the view's frame, a scroll
        bar and a little air, capped at the screen's width."""
        metrics = self.view().fontMetrics()
        widest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())),
                     default=0)
        extra = (self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
                 + 2 * self.view().frameWidth() + 3 * metrics.averageCharWidth())
        screen = self.screen().availableGeometry().width() if self.screen() else widest + extra
        return max(self.width(), min(widest + extra, screen))

    def showPopup(self) -> None:  # noqa: N802 - Qt's name
        self.view().setMinimumWidth(self.popup_width())
        super().showPopup()
