"""One truth for the job's state: the Training panel's buttons, the status bar and the Job
menu follow the job runner whichever of them paused, resumed or stopped it; closing during a
job asks; the end of training is announced."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from workbench.app.panels import panel_types
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_training import FakeTraining
from workbench.qt.main_window import MainWindow


@pytest.fixture
def window(qtbot, settings, tmp_path):
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    backend = FakeBackend(training=FakeTraining(run_dir, delay=0.05))
    window = MainWindow(WorkbenchController(backend), panel_types(), settings=settings)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.controller.jobs.cancel()


def shown(window) -> dict[str, str]:
    panel = window.panels["training"]
    return {"panel": panel.controls.pause.text(), "status": window.job_status.pause_button.text(),
            "menu": window.pause_action.text().replace("&", "")}


def test_pause_in_the_panel_resume_by_shortcut_and_every_control_agrees(qtbot, window):
    panel = window.panels["training"]
    jobs = window.controller.jobs
    assert panel.start_training()
    qtbot.waitUntil(lambda: panel.controls.pause.isEnabled(), timeout=5000)
    panel.controls.pause.click()  # pause from the Training panel
    assert jobs.paused and shown(window) == {"panel": "Resume", "status": "Resume",
                                             "menu": "Resume"}
    window.pause_action.trigger()  # Job ▸ Resume (Ctrl+Shift+P)
    assert not jobs.paused and shown(window) == {"panel": "Pause", "status": "Pause",
                                                 "menu": "Pause"}
    panel.controls.pause.click()  # the panel's button pauses again, it does not resume
    assert jobs.paused and shown(window)["panel"] == "Resume"
    window.job_status.pause_button.click()  # the status bar's resumes
    assert not jobs.paused and shown(window)["panel"] == "Pause"
    with qtbot.waitSignal(jobs.busy_changed, timeout=10_000):
        window.cancel_action.trigger()  # Job ▸ Cancel stops the training
    assert not panel.controls.stop.isEnabled() and not window.pause_action.isEnabled()
    assert "Training stopped" in panel.last_notice and "resume" in panel.last_notice


def test_the_cancel_tooltip_names_a_shortcut_that_exists(window):
    tip = window.job_status.cancel_button.toolTip()
    assert "Ctrl+." in tip and "Esc" not in tip
    assert window.cancel_action.shortcut().toString() == "Ctrl+."


def test_closing_during_a_job_asks_and_no_keeps_everything(qtbot, window, monkeypatch):
    panel = window.panels["training"]
    assert panel.start_training()
    qtbot.waitUntil(lambda: window.controller.jobs.busy, timeout=5000)
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *args, **kw: asked.append(args[2]) or QMessageBox.StandardButton.No)
    window.close()
    assert asked and "is running. Stop it and quit?" in asked[0]
    assert window.isVisible() and window.controller.jobs.busy
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *args, **kw: QMessageBox.StandardButton.Yes)
    window.close()
    assert not window.isVisible() and not window.controller.jobs.busy


def test_the_end_of_training_is_announced(qtbot, window):
    panel = window.panels["training"]
    # 100 recorded steps; more than 20 s on a slow 2-core machine
    with qtbot.waitSignal(window.controller.jobs.busy_changed, timeout=90_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.start_training()
    assert panel.last_notice == "Training finished: recorded, 100 steps, validation loss 1.600."
    assert panel.last_notice in window.statusBar().currentMessage()
    assert "── Training finished" in panel.samples.toPlainText()


def test_a_word_vector_epoch_that_cannot_stop_says_so_when_quitting(qtbot, window, monkeypatch):
    import threading

    from workbench.core.events import JobFinished
    from workbench.core.jobs import JobSpec

    release = threading.Event()

    def epoch(control):
        release.wait(10)
        yield JobFinished()
    window.controller.run_job(JobSpec("Training word2vec", epoch,
                                      stop_note="gensim cannot be interrupted inside one"))
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *args, **kw: asked.append(args[2]) or QMessageBox.StandardButton.No)
    window.close()
    assert "gensim cannot be interrupted inside one" in asked[0]
    window.controller.jobs.cancel()
    assert "stopping after this epoch" in window.job_status.label.text()
    with qtbot.waitSignal(window.controller.jobs.busy_changed, timeout=10_000):
        release.set()
