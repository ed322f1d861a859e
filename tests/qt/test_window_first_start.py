"""Small window defects of issue 31: a first start opens maximised (its title bar on screen),
and the Map tab stops asking for vectors once they are there."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMainWindow

from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_data import word_vectors
from workbench.qt.panels.embeddings.map_view import MapView
from workbench.qt.window_layout import WindowLayout


def restore(window, settings) -> None:
    """The window's size as WindowLayout restores it (a bare window has no perspectives)."""
    window.docks, window.panels = {}, {}
    layout = WindowLayout(window, settings)
    layout.perspectives.switch = lambda name: True
    layout.restore()


def test_a_first_start_opens_maximised_and_a_saved_size_is_kept(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = QMainWindow()
    qtbot.addWidget(window)
    restore(window, settings)
    assert window.windowState() & Qt.WindowState.WindowMaximized  # was a screen-sized frame
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(900, 600)
    settings.setValue("window/geometry", window.saveGeometry())
    again = QMainWindow()
    qtbot.addWidget(again)
    restore(again, settings)
    assert not again.windowState() & Qt.WindowState.WindowMaximized


def test_the_map_tab_says_the_vectors_are_ready(qtbot):
    controller = WorkbenchController(FakeBackend())
    view = MapView(controller)
    qtbot.addWidget(view)
    assert "Train or import vectors" in view.status.text()
    view.set_vectors(word_vectors())
    assert "Train or import" not in view.status.text()
    assert "6 word vectors ready" in view.status.text()
    controller.shutdown()
