"""The window's size, perspectives and zoom: what the View menu and the toolbar offer, and what
is remembered between sessions.

The first start fills the screen (no minimum above 1280 × 720: every panel sits in a scroll
area, so a small screen scrolls a panel instead of pushing the window off the screen); later
starts restore the size and the perspective the user left. Perspectives (perspectives.py) are
one click in the toolbar or Ctrl+1… away; zoom and presentation mode (zoom.py) scale text and
plots together.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from workbench.qt.perspectives import PERSPECTIVES, PerspectiveSwitcher
from workbench.qt.zoom import PRESENTATION, Zoom

MIN_WIDTH, MIN_HEIGHT = 1280, 720  # the smallest screen the layouts are made (and tested) for


class WindowLayout(QObject):
    def __init__(self, window: QMainWindow, settings: QSettings) -> None:
        super().__init__(window)
        self.window = window
        self.settings = settings
        self.zoom = Zoom(window, settings)
        self.perspectives = PerspectiveSwitcher(window, settings, lambda: self.zoom.factor)
        # a zoom or a resize across a perspective's width moves its side panels in or out of
        # the main tab group, once the window has settled (a drag resizes many times)
        self.refit_timer = QTimer(self, singleShot=True, interval=300)
        self.refit_timer.timeout.connect(self.perspectives.refit)
        self.zoom.changed.connect(lambda _: self.refit_timer.start())
        window.installEventFilter(self)
        self.toolbar = QToolBar("Perspectives", window)
        self.toolbar.setObjectName("perspectives")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar.addActions(list(self.perspectives.actions.values()))
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.presentation = QAction("&Presentation mode", self, checkable=True,
                                    shortcut=QKeySequence("Ctrl+Shift+M"))
        self.presentation.setToolTip(f"Text and plots {PRESENTATION:g} times larger, for a "
                                     "projector (Ctrl+Shift+M)")
        self.presentation.setChecked(self.zoom.presentation)
        self.presentation.toggled.connect(self.zoom.set_presentation)
        self.zoom.changed.connect(lambda _: self.presentation.setChecked(self.zoom.presentation))
        self.toolbar.addSeparator()
        self.toolbar.addAction(self.presentation)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window and event.type() == QEvent.Type.Resize:
            self.refit_timer.start()
        return False

    def view_actions(self) -> list[QAction]:
        """Perspectives, zoom and layout actions for the View menu (before the panel list)."""
        actions = list(self.perspectives.actions.values())
        separator = QAction(self)
        separator.setSeparator(True)
        actions.append(separator)
        for text, keys, slot in (("Zoom &in", QKeySequence.StandardKey.ZoomIn, self.zoom.zoom_in),
                                 ("Zoom &out", QKeySequence.StandardKey.ZoomOut,
                                  self.zoom.zoom_out),
                                 ("&Actual size", QKeySequence("Ctrl+0"), self.zoom.actual_size)):
            action = QAction(text, self)
            action.setShortcut(keys)
            if keys == QKeySequence.StandardKey.ZoomIn:  # Ctrl+= too: + needs Shift on most keys
                action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
            action.triggered.connect(slot)
            actions.append(action)
        actions.append(self.presentation)
        reset = QAction("&Reset this layout", self)
        reset.setToolTip("The current perspective's panels where they start")
        reset.triggered.connect(self.perspectives.reset)
        separator = QAction(self)
        separator.setSeparator(True)
        actions += [separator, reset]
        return actions

    def add_to(self, menu: QMenu, before: QAction | None) -> None:
        for action in self.view_actions():
            menu.insertAction(before, action)

    # --- remembering --------------------------------------------------------------------------

    def restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        if not (isinstance(geometry, QByteArray) and self.window.restoreGeometry(geometry)):
            screen = self.window.screen().availableGeometry()
            self.window.setGeometry(screen)  # the size to return to from maximised
            # the first start opens maximised: a geometry of the whole screen put the frame's
            # title bar above the screen's top edge under a window manager (issue 31)
            self.window.setWindowState(self.window.windowState()
                                       | Qt.WindowState.WindowMaximized)
        wanted = str(self.settings.value("perspective/current", "") or "")
        if not self.perspectives.switch(wanted):
            default = next((p.name for p in PERSPECTIVES if self.perspectives.named(p.name)),
                           self.perspectives.available()[-1].name)
            self.perspectives.switch(default)

    def save(self) -> None:
        self.settings.setValue("window/geometry", self.window.saveGeometry())
        self.perspectives.save()
