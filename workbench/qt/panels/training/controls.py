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
        layout.addWidget(self.what)
        layout.addWidget(self.progress)
        layout.addWidget(self.eta)
        layout.addWidget(scroll, 1)
        self.start.clicked.connect(self.start_clicked)
        self.pause.clicked.connect(self.pause_clicked)
        self.stop.clicked.connect(self.stop_clicked)
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

    def show_progress(self, step: int, total: int, eta_s: float) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(step)
        self.progress.setFormat(f"step {step} / {total}")
        self.eta.setText(format_eta(eta_s))
