"""The row at the top of every inspector: probe text, Probe, Freeze, Open checkpoint, status.

It owns which snapshot an inspector looks at. By default that is the session's latest
(`controller.snapshot_changed`, sent at each eval point while training); "Freeze" keeps the
current one; "Open checkpoint…" loads one from a run directory and freezes on it. Probes are
queued on the controller's query queue under the bar's `caller` name, so a newer probe of the
same inspector replaces one still waiting and the newest always runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.events import JobFailed, JobStopped
from workbench.core.jobs import JobSpec
from workbench.qt.widgets.checkpoint_open import ask_checkpoint_path, open_checkpoint
from workbench.qt.widgets.snapshot_source import no_model_text

DEFAULT_PROBE = "To be, or not to be, that is the question:"
# Snapshots can come every fraction of a second; refreshing on each would take CPU from the
# training run (benchmarks/bench_inspection.py). Automatic refreshes start at most this often;
# a snapshot arriving sooner is shown when the interval is up (the latest one wins).
AUTO_INTERVAL_S = 2.0
RequestFn = Callable[[Any, str], JobSpec]  # (snapshot, probe text) -> query job


def model_key(snapshot: Any) -> tuple[str, str]:
    """What tells two models apart in a view that collects results over training snapshots
    (a slider, a curve per head): the run folder (else the run's name) and the architecture.
    A new key means a new series: one model's snapshots must not run on into another's."""
    if snapshot is None:
        return ("", "")
    config = snapshot.model_config or {}
    return (snapshot.run_dir or snapshot.run_name,
            f"{config.get('arch', '')}/{config.get('attention', '')}")


class ProbeBar(QWidget):
    """Emits `result_ready(result)` with each probe's result (a `Trace`)."""

    result_ready = Signal(object)
    snapshot_loaded = Signal(object)

    def __init__(self, controller, request: RequestFn, text: str = DEFAULT_PROBE,
                 placeholder: str = "Probe text", parent: QWidget | None = None,
                 caller: str = "probe", lesson_probes: bool = True,
                 example: Callable[[Any], str] | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        # the text to probe a snapshot with while the box is empty (a task's own example)
        self.example = example
        # a lesson's probe is a line of the play for the language-model inspectors; a task's
        # view (a date to rewrite, a sentence to tag or classify) keeps its own example
        self.lesson_probes = lesson_probes
        self.request = request
        self.caller = caller
        self.snapshot = controller.snapshot
        self.traced_snapshot: Any = None  # the snapshot of the last trace shown
        self._requested: Any = None
        self._user_asked = False
        self._last_auto = -AUTO_INTERVAL_S
        self._auto_timer = QTimer(self)
        self._auto_timer.setSingleShot(True)
        self._auto_timer.timeout.connect(self.refresh)
        self.text = QLineEdit(text)
        self.text.setPlaceholderText(placeholder)
        self.text.setToolTip("The sentence the model reads; the views show what happens inside.")
        self.text.returnPressed.connect(self.probe)
        self.probe_button = QPushButton("Probe")
        self.probe_button.clicked.connect(self.probe)
        self.freeze = QCheckBox("Freeze")
        self.freeze.setToolTip("Keep this view while training goes on (new snapshots are ignored "
                               "until you untick it).")
        self.freeze.toggled.connect(self._on_freeze)
        self.open_button = QPushButton("Open checkpoint…")
        self.open_button.setToolTip("Inspect a checkpoint from a run directory (freezes the view).")
        self.open_button.clicked.connect(self.ask_checkpoint)
        self.status = QLabel()
        self.status.setStyleSheet("color: #555555")
        self.text.setMinimumWidth(160)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.text, 1)
        buttons.addWidget(self.probe_button)
        buttons.addWidget(self.freeze)
        buttons.addWidget(self.open_button)
        self.button_row = buttons  # an inspector may add a button of its own (Test sentence)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        controller.snapshot_changed.connect(self._on_snapshot)
        controller.query_queue.state_changed.connect(self._on_query_state)
        controller.lesson_action.connect(self._on_lesson)
        controller.following_changed.connect(self._on_following)
        self._show_source()

    # --- which snapshot -----------------------------------------------------------------------

    @Slot(object)
    def _on_snapshot(self, snapshot: Any) -> None:
        if self.freeze.isChecked():
            return
        self.snapshot = snapshot
        wait = self._last_auto + AUTO_INTERVAL_S - time.monotonic()
        if wait > 0:
            if not self._auto_timer.isActive():
                self._auto_timer.start(int(wait * 1000) + 1)
            return
        self._last_auto = time.monotonic()
        self.refresh()

    @Slot(str, object)
    def _on_lesson(self, action: str, value: Any) -> None:
        """A lesson step: probe this sentence, or look at the model it opened (unfrozen, so a
        model the lesson then trains replaces it)."""
        if action == "probe" and self.lesson_probes:
            self.text.setText(str(value))
            self.refresh()
        elif action == "snapshot" and self.freeze.isChecked():
            self.freeze.setChecked(False)  # _on_freeze takes the session's (lesson's) model

    def _on_freeze(self, frozen: bool) -> None:
        if not frozen and self.controller.snapshot is not None \
                and self.controller.snapshot is not self.snapshot:
            self.snapshot = self.controller.snapshot
            self.refresh()

    def set_snapshot(self, snapshot: Any, freeze: bool = True) -> None:
        """Look at `snapshot` (a loaded checkpoint), frozen so training does not replace it."""
        self.freeze.setChecked(freeze)
        self.snapshot = snapshot
        self.snapshot_loaded.emit(snapshot)
        self.refresh(user=True)

    def ask_checkpoint(self) -> None:
        path = ask_checkpoint_path(self)
        if path:
            self.open_checkpoint(path)

    def open_checkpoint(self, path: str) -> bool:
        return open_checkpoint(self.controller, path, self.set_snapshot)

    # --- probing ------------------------------------------------------------------------------

    def probe(self) -> None:
        self.refresh(user=True)

    def refresh(self, user: bool = False) -> None:
        self._user_asked = self._user_asked or user
        if self.snapshot is None:
            self._show_source()
            return
        if self.example is not None and not self.text.text().strip():
            self.text.setText(self.example(self.snapshot))
        try:
            spec = self.request(self.snapshot, self.text.text())
        except Exception as exc:  # noqa: BLE001 - bad probe text: say so, keep the view
            self._fail(str(exc))
            return
        self._requested = self.snapshot
        self.controller.run_query(spec, on_result=self._on_result, on_error=self._on_error,
                                  caller=self.caller)

    def _on_result(self, result: Any) -> None:
        # the snapshot whose weights made this trace (a newer one may have arrived since):
        # worked computations recompute from exactly these weights
        self.traced_snapshot = self._requested
        self._user_asked = False
        self._show_source()
        self.result_ready.emit(result)

    def _on_error(self, outcome: JobStopped) -> None:
        message = (outcome.message if isinstance(outcome, JobFailed) else outcome.reason
                   ) or "failed"
        self._fail(f"Probe failed: {message}")  # a message box too when the user asked

    def _fail(self, message: str) -> None:
        self.status.setText(message)
        if self._user_asked:
            self.controller.report_error(message)
        self._user_asked = False

    @Slot(str, str)
    def _on_query_state(self, caller: str, state: str) -> None:
        if caller != self.caller or self.snapshot is None:
            return
        if state == "waiting":
            self.status.setText(f"{self.snapshot.label}: waiting for the queries before it…")
        elif state == "running":
            self.status.setText(f"{self.snapshot.label}: probing…")

    @Slot(str, bool)
    def _on_following(self, _run_dir: str, _following: bool) -> None:
        if self.snapshot is None:
            self._show_source()

    def _show_source(self) -> None:
        if self.snapshot is None:
            self.status.setText(no_model_text(self.controller))
        else:
            frozen = " (frozen)" if self.freeze.isChecked() else ""
            self.status.setText(f"{self.snapshot.label}{frozen}")
