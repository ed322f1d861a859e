"""The base of every dockable panel.

A panel is a QWidget that gets the controller and nothing else. It declares a short `name`
(used by `workbench --screenshot out.png --panel NAME` and `--list-panels`), a `title` for its
dock, and the dock area it has under View ▸ All panels, and may join a perspective. It may offer
menu actions under its own menu.
"""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from workbench.qt.controller import WorkbenchController

AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.BottomDockWidgetArea,
    "top": Qt.DockWidgetArea.TopDockWidgetArea,
}


class Panel(QWidget):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    area: ClassVar[str] = "right"  # one of AREAS
    menu_title: ClassVar[str] = ""  # a menu of its own for `menu_actions`, if not empty
    # the perspective (qt/perspectives.py) this panel joins, tabbed with its main panels, when
    # the perspective does not name it already; "" = only "All panels" and the View menu
    perspective: ClassVar[str] = ""

    def __init__(self, controller: WorkbenchController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName(f"panel-{self.name}")

    def menu_actions(self) -> list[QAction]:
        """Actions for the panel's menu (with shortcuts); none by default."""
        return []
