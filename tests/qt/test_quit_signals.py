"""SIGTERM closes the window as its close button does (so a training job saves), not the
process dying."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtWidgets import QWidget

from workbench.qt.quit_signals import close_on_signals


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_sigterm_closes_the_window_through_its_close_event(qtbot):
    closed = []

    class Window(QWidget):
        def closeEvent(self, event):  # noqa: N802 - Qt override
            closed.append(True)
            super().closeEvent(event)

    window = Window()
    qtbot.addWidget(window)
    window.show()
    restore = close_on_signals(window)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        qtbot.waitUntil(lambda: bool(closed) and not window.isVisible(), timeout=10_000)
    finally:
        restore()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
