"""Point at a control: find it in a panel, bring it into view, and draw a blinking frame over it.

A lesson step names a control as an object name (`train-start`, `field-temperature`) or an
attribute path on the panel (`explorer.word`). Bringing it into view switches tabs, opens a
collapsed "Advanced" group, and scrolls the dock, so the frame is never drawn over nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import (
    QGroupBox,
    QScrollArea,
    QStackedWidget,
    QTabWidget,
    QToolBox,
    QWidget,
)
from shiboken6 import isValid

BLINKS = 6  # on/off switches, then the frame stays a while
BLINK_MS = 300
STEADY_MS = 4000


def find_control(panel: QWidget, name: str) -> QWidget | None:
    """The widget called `name` in `panel`: an object name first, then an attribute path."""
    if not name:
        return panel
    found = [w for w in panel.findChildren(QWidget, name) if _on_shown_page(w, panel)]
    if found:
        return found[0]
    target: object = panel
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    if isinstance(target, QWidget):
        return target
    widget = getattr(target, "widget", None)  # a pyqtgraph item's view, a plot's widget
    return widget if isinstance(widget, QWidget) else None


def _on_shown_page(widget: QWidget, panel: QWidget) -> bool:
    """False when `widget` lies on a page a stacked widget does not show (the Architecture
    panel keeps one form per architecture; only the chosen one counts). Tab pages count:
    `reveal` switches to them."""
    child, parent = widget, widget.parentWidget()
    while parent is not None and child is not panel:
        hidden_page = (isinstance(parent, QStackedWidget)
                       and not isinstance(parent.parentWidget(), (QTabWidget, QToolBox))
                       and parent.currentWidget() is not child)
        if hidden_page:
            return False
        child, parent = parent, parent.parentWidget()
    return True


def reveal(widget: QWidget) -> None:
    """Switch every tab, tool box page and collapsed group on the way to `widget` so it
    shows, and scroll its scroll areas to it."""
    chain: list[QWidget] = []  # widget and its ancestors, innermost first
    current: QWidget | None = widget
    while current is not None:
        chain.append(current)
        current = current.parentWidget()
    for depth, ancestor in enumerate(chain):
        if isinstance(ancestor, (QTabWidget, QToolBox)):
            pages = [ancestor.indexOf(inner) for inner in chain[:depth]]
            index = next((p for p in pages if p >= 0), -1)
            if index >= 0:  # a tab's page sits inside the tab widget's own stack
                ancestor.setCurrentIndex(index)
        elif isinstance(ancestor, QGroupBox) and ancestor.isCheckable() \
                and not ancestor.isChecked():
            ancestor.setChecked(True)  # the config forms' collapsed "Advanced" box
    for ancestor in chain[1:]:
        if isinstance(ancestor, QScrollArea):
            ancestor.ensureWidgetVisible(widget)


class Spotlight(QObject):
    """A frame over one control of `window`, blinking a few times, ignoring the mouse."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.frame = QWidget(window)
        self.frame.setObjectName("lesson-spotlight")
        self.frame.setStyleSheet("#lesson-spotlight { border: 3px solid #d6006f; "
                                 "border-radius: 4px; background: transparent; }")
        self.frame.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.frame.hide()
        self.target: QWidget | None = None
        self.blinks = 0
        self.timer = QTimer(self, interval=BLINK_MS)
        self.timer.timeout.connect(self._blink)
        self.steady = QTimer(self, singleShot=True, interval=STEADY_MS)
        self.steady.timeout.connect(self.hide)

    def show_on(self, widget: QWidget) -> None:
        self.target = widget
        self.blinks = BLINKS
        self.steady.stop()
        self._place()
        self.frame.show()
        self.frame.raise_()
        self.timer.start()

    def _place(self) -> None:
        if self.target is None:
            return
        # the part of the control its scroll areas and dock leave visible: the control's
        # rectangle cut by each ancestor's. (Not visibleRegion(): it also takes out what the
        # control's own opaque children cover, and around a heatmap, whose plot fills it, the
        # frame went round the export buttons only.)
        shown = QRect(self.target.mapTo(self.window, QPoint(0, 0)), self.target.size())
        ancestor = self.target.parentWidget()
        while ancestor is not None and ancestor is not self.window:
            shown = shown.intersected(QRect(ancestor.mapTo(self.window, QPoint(0, 0)),
                                            ancestor.size()))
            ancestor = ancestor.parentWidget()
        if shown.isEmpty():
            shown = QRect(self.target.mapTo(self.window, QPoint(0, 0)), self.target.size())
        self.frame.setGeometry(shown.adjusted(-4, -4, 4, 4))

    def _blink(self) -> None:
        """Each tick: follow the control (the layout may move it), blink for the first
        ticks, then stay steady; go as soon as the control is hidden (another tab chosen)."""
        if self.target is None or not isValid(self.target) or not self.target.isVisible() \
                or self.target.visibleRegion().isEmpty():
            self.hide()
            return
        self._place()
        self.blinks -= 1
        if self.blinks > 0:
            self.frame.setVisible(not self.frame.isVisible())
        elif self.blinks == 0:
            self.frame.show()
            self.steady.start()

    def hide(self) -> None:
        self.timer.stop()
        self.steady.stop()
        self.frame.hide()
