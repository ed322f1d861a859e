"""Build the wired main window (backend + controller + panels) and wait for it to settle."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication

from workbench.app.backend import Backend
from workbench.app.panels import panel_types
from workbench.core.cpu_threads import reserve_gui_core
from workbench.qt.controller import WorkbenchController
from workbench.qt.main_window import MainWindow


def build_window(settings: QSettings | None = None, backend: Backend | None = None) -> MainWindow:
    reserve_gui_core()  # summaries, probes and generation leave the GUI thread a core too
    controller = WorkbenchController(backend or Backend())
    return MainWindow(controller, panel_types(), settings=settings)


def settle(window: MainWindow, timeout_s: float = 60.0, quiet_s: float = 0.3) -> bool:
    """Process events until no job or query has run for `quiet_s` and every followed run with
    a checkpoint has loaded one (for screenshots and scripted checks: `--follow RUN` shots
    were taken while the checkpoint still loaded, the inspectors saying "No model yet")."""
    app = QApplication.instance()
    controller = window.controller
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        app.processEvents()
        # processEvents leaves deleteLater() to an event loop, which a screenshot never runs:
        # widgets Qt discards (a dock group's old tab bar) stayed in the picture
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        busy = controller.jobs.busy or controller.query_queue.busy or any(
            follower.loading_checkpoint for follower in controller.followers.values())
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > quiet_s:  # let follow-up jobs start
            return True
        time.sleep(0.01)
    return False
