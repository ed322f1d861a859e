"""Fixtures shared by the panel tests that drive the real main window."""

from __future__ import annotations

import pytest

# The modules that build the main window (or its cycle collector), over the real backend or the
# fake one, or the real models backend. On the 2-core CI machine of stops 37 and 38, where
# `import torch` took minutes and other guests took 40 % of the processor, tests/qt took most
# of an hour. Two reasons: the real backend builds torch models on job threads, and closing a
# window hands cycle collection back with `gc.unfreeze()` (qt/gui_thread_gc.py), after which
# every later test's full collection (tests/conftest.py) walked the whole heap, torch included:
# py-spy found workers there half the time. These modules are `slow`: `make test-all` runs them,
# CI's `make test` leaves them out (README, "Tests"). The panels' and widgets' own tests over the
# fake backend stay in `make test`.
WHOLE_WINDOW = {
    "test_architecture_panel.py", "test_controls_agree.py", "test_corpus_open_routes.py",
    "test_corpus_panel.py", "test_course_fidelity.py", "test_embeddings_panel.py",
    "test_error_surface.py", "test_gui_thread_gc.py", "test_held_out_panel.py", "test_help.py",
    "test_job_runner.py", "test_lesson_layout.py", "test_lesson_steps_setup.py",
    "test_main_window.py", "test_recipe_experiment.py", "test_spotlight.py",
    "test_training_follow.py", "test_trust_dialog.py", "test_window_first_start.py",
    "test_window_fit.py", "test_zoom_and_perspectives.py",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in WHOLE_WINDOW and "/tests/qt/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.slow)


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
    from workbench.qt.controller import WorkbenchController
    from workbench.qt.gallery.fake_backend import FakeBackend
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
