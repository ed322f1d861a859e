"""A column of controls that scrolls up and down, never sideways, and is always as wide as its
controls need at the current font size: zoomed for a projector, a fixed width cut off the
right half of every spin box and button (seen in the Generate and Training panels in
presentation mode at 1366 x 768)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class ControlColumn(QScrollArea):
    def __init__(self, controls: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(controls)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        controls.installEventFilter(self)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The controls' own minimum width (it grows with the font), beside the scroll bar."""
        hint = super().minimumSizeHint()
        controls = self.widget()
        if controls is None:
            return hint
        need = (controls.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
                + 2 * self.frameWidth())
        return QSize(max(hint.width(), need), hint.height())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.minimumSizeHint().width()), hint.height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # the controls asked for a new layout (a font change, a row shown): so does the column
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)
