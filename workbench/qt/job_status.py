"""The status-bar widget for the long-job runner: title, progress, ETA, pause and cancel."""

from __future__ import annotations

from PySide6.QtCore import QSize, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from workbench.qt.job_runner import JobRunner


def format_eta(seconds: float) -> str:
    if seconds < 0:
        return ""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"ETA {hours}h {minutes:02d}m"
    if minutes:
        return f"ETA {minutes}m {secs:02d}s"
    return f"ETA {secs}s"


class JobStatusWidget(QWidget):
    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.label = QLabel("Ready")
        self.bar = QProgressBar()
        self.bar.setFixedWidth(180)
        self.bar.setTextVisible(True)
        self.eta = QLabel("")
        self.pause_button = QPushButton("Pause")
        self.pause_button.setToolTip("Pause the running job between two steps (Ctrl+Shift+P)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job after its current step (Ctrl+.)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.eta, self.pause_button, self.cancel_button):
            layout.addWidget(widget)
        self.pause_button.clicked.connect(runner.toggle_pause)
        self.cancel_button.clicked.connect(runner.cancel)
        runner.busy_changed.connect(self._on_busy)
        runner.state_changed.connect(self._on_state)
        runner.progress.connect(self._on_progress)
        self._on_busy(False)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        # As tall as the hidden buttons: else the status bar grows when a job starts, the
        # whole window lays out again, and every plot in it repaints (50-70 ms at Train)
        hint = super().minimumSizeHint()
        tallest = max(w.sizeHint().height() for w in (self.pause_button, self.cancel_button,
                                                      self.bar))
        return QSize(hint.width(), max(hint.height(), tallest))

    def sizeHint(self) -> QSize:  # noqa: N802
        hint = super().sizeHint()
        return QSize(hint.width(), max(hint.height(), self.minimumSizeHint().height()))

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        self.bar.setVisible(busy)
        self.eta.setVisible(busy)
        self.pause_button.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.label.setText(self.runner.title if busy else "Ready")
        if busy:
            self.bar.setRange(0, 0)  # busy indicator until the first Progress arrives
            self.eta.setText("")

    @Slot(float, float, str, float)
    def _on_progress(self, done: float, total: float, message: str, eta: float) -> None:
        if not self.runner.busy:
            return
        if total > 0:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(1000 * min(done / total, 1.0)))
        else:
            self.bar.setRange(0, 0)
        title = self.runner.title
        self.label.setText(f"{title}: {message}" if message else title)
        self.eta.setText(format_eta(eta))

    @Slot(str)
    def _on_state(self, state: str) -> None:
        """The runner's state is the one truth: the Job menu and the Training panel follow it
        too, whichever of them paused or resumed."""
        self.pause_button.setText("Resume" if state == "paused" else "Pause")
        self.pause_button.setEnabled(state in ("running", "paused"))
        self.cancel_button.setEnabled(state in ("running", "paused"))
        if state == "stopping":
            after = "this epoch (gensim cannot stop inside one)" if self.runner.stop_note \
                else "the current step"
            self.label.setText(f"{self.runner.title}: stopping after {after}…")
        elif state == "paused":
            self.label.setText(f"{self.runner.title}: paused")
