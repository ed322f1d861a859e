"""The real window as a student following the lessons has it: laptop size, probes unthrottled."""

from __future__ import annotations

from workbench.app.window import build_window
from workbench.qt.widgets import probe_bar


def lesson_window(qtbot, settings, monkeypatch):
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # every snapshot probed at once
    window = build_window(settings)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    return window
