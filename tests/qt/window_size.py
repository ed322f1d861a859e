"""Give a main window a size in a test. Its first start opens maximised (window_layout.py), and
a maximised window ignores resize(): the window tests ran at the offscreen screen's 800 × 800
while they said 1366 × 768 or 1920 × 1080, until this put the window back to normal first."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow


def resize_window(window: QMainWindow, width: int, height: int) -> None:
    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMaximized)
    window.resize(width, height)
