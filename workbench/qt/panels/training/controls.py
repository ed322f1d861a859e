"""Start, pause/resume and stop, what will be trained, progress with ETA, and the training
settings form."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.training import TrainingConfig
from workbench.qt.job_status import format_eta
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.control_column import ControlColumn


class TrainingControls(QWidget):
    start_clicked = Signal()
    pause_clicked = Signal()
    stop_clicked = Signal()
    test_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.start = QPushButton("Train")
        self.start.setObjectName("train-start")
        self.start.setToolTip("Train the chosen model on the tokenized corpus (Ctrl+Return)")
        self.pause = QPushButton("Pause")
        self.pause.setObjectName("train-pause")
        self.pause.setToolTip("Pause after the current step; press again to resume")
        self.stop = QPushButton("Stop")
        self.stop.setObjectName("train-stop")
        self.stop.setToolTip("Stop after the current step; the latest checkpoint is kept so "
                             "the run can be resumed")
        self.test = QPushButton("Test the selected run")
        self.test.setObjectName("train-test")
        self.test.setToolTip("Score the selected run's best checkpoint (its best validation) "
                             "once on the test split, text no validation looked at; runs in "
                             "the background. A run also does this when it ends.")
        buttons = QHBoxLayout()
        for button in (self.start, self.pause, self.stop):
            buttons.addWidget(button)
        self.what = QLabel()
        self.what.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setFormat("idle")
        self.progress.setValue(0)
        self.eta = QLabel()
        self.form = ConfigForm(TrainingConfig)
        scroll = ControlColumn(self.form)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.test)
        layout.addWidget(self.what)
        layout.addWidget(self.progress)
        layout.addWidget(self.eta)
        layout.addWidget(scroll, 1)
        self.start.clicked.connect(self.start_clicked)
        self.pause.clicked.connect(self.pause_clicked)
        self.stop.clicked.connect(self.stop_clicked)
        self.test.clicked.connect(self.test_clicked)
        self.form.changed.connect(self._on_form_changed)
        self.set_running(False)

    def _on_form_changed(self, config) -> None:
        self.start.setEnabled(self.start.isEnabled() and config is not None
                              and not self.form.problems())

    def set_running(self, running: bool, paused: bool = False, stopping: bool = False) -> None:
        self.start.setEnabled(not running and not self.form.problems())
        self.pause.setEnabled(running and not stopping)
        self.stop.setEnabled(running and not stopping)
        self.pause.setText("Resume" if paused else "Pause")
        self.form.setEnabled(not running)
        if stopping:
            self.progress.setFormat("stopping after this step…")
        if not running:
            self.eta.setText("")
            if self.progress.format().startswith("stopping"):  # it stopped: say so, once
                self.progress.setFormat("stopped")
            elif self.progress.format().startswith("finishing"):
                self.progress.setFormat("finished")

    def show_progress(self, done: float, total: float, message: str, eta_s: float) -> None:
        """The trainer's progress: steps of all the run's steps, or seconds of its time
        budget (a resumed run counts from its start, so its bar shows the whole run's share);
        `message` is what it says (its step, the time spent, or what it does at its end)."""
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(1000 * min(done / total, 1.0)) if total > 0 else 0)
        text = message.split(", loss")[0] if message else f"{done:.0f} / {total:.0f}"
        self.progress.setFormat(text[:1].lower() + text[1:])
        self.eta.setText(format_eta(eta_s))
