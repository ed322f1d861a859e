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


@pytest.fixture
def make_panel(qtbot, monkeypatch):
    """`make_panel(PanelType, backend=None)`: one panel over its own controller on the fake
    backend (or the one given), probes unthrottled; every controller made is shut down after
    the test. The one set-up the inspector and console tests share."""
    from tests.qt.fake_backend import FakeBackend
    from workbench.qt.controller import WorkbenchController
    from workbench.qt.widgets import probe_bar

    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # no throttling in tests
    controllers = []

    def make(panel_type, backend=None):
        controller = WorkbenchController(backend if backend is not None else FakeBackend())
        controllers.append(controller)
        widget = panel_type(controller)
        qtbot.addWidget(widget)
        return widget

    yield make
    for controller in controllers:
        controller.shutdown()
