"""Fixtures shared by the panel tests that drive the real main window."""

from __future__ import annotations

import pytest


@pytest.fixture
def window(qtbot, settings):
    """The main window with the default backend, shown; closed (and its jobs stopped) by
    qtbot at the end of the test. Modules that need another backend define their own."""
    from workbench.app.window import build_window

    window = build_window(settings)
    qtbot.addWidget(window)
    window.show()
    return window
