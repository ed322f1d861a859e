"""The real window as a student following the lessons has it: laptop size, probes unthrottled."""

from __future__ import annotations

from pathlib import Path

from tests.qt.window_size import resize_window
from workbench.app.window import build_window
from workbench.qt.widgets import probe_bar


def lesson_window(qtbot, settings, monkeypatch):
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # every snapshot probed at once
    # the lessons' trainings write their runs beside the test's settings, not into the user's
    # runs folder (lessons 13 and 14 left three runs there, listed by every later window)
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(Path(settings.fileName()).parent / "runs"))
    # the GPT-2 lesson's model folder, as a classroom copies it in: a tiny random GPT-2
    models = Path(settings.fileName()).parent / "models"
    if not (models / "gpt2").is_dir():
        from tests.core.pretrained_folders import make_gpt2_folder

        make_gpt2_folder(models / "gpt2")
    monkeypatch.setenv("WORKBENCH_MODELS_DIR", str(models))
    window = build_window(settings)
    qtbot.addWidget(window)
    resize_window(window, 1366, 768)
    window.show()
    return window
