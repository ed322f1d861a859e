"""The Training panel's followed runs: run folders another process writes (a headless or
torchrun run, a folder synced from a server), whose curves and samples grow as it writes them.

The controller owns the followers (one thread each); this mixin turns their events into the
panel's series, keeps a status line (step, checkpoint, time since the last line) and offers
stopping. Stopping a follow never touches the run.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from workbench.core.events import CheckpointLoaded, Event, RunGrew
from workbench.qt.panels.training.series import RunSeries

STALE_S = 120  # no line for this long: the status line says the run may have stopped


class FollowActions:
    """Mixed into TrainingPanel (it provides controller, series, run_list, samples, curves,
    follow_bar, timer and _add_listed/_refresh_runs)."""

    def follow_run_dialog(self) -> None:
        root = str(self.controller.backend.training.runs_root())
        path = QFileDialog.getExistingDirectory(self, "Follow run folder", root)
        if path:
            self.controller.follow_run(path)

    def stop_following(self, key: str = "") -> None:
        """Stop following `key`, else the selected run if followed, else every followed run."""
        keys = [key] if key else [self.run_list.current_key()]
        if keys[0] not in self.controller.followers:
            keys = list(self.controller.followers)
        for each in keys:
            self.controller.stop_following(each)

    @Slot(str, bool)
    def _on_following(self, key: str, following: bool) -> None:
        series = self.series.get(key)
        if following:
            if series is None:
                series = self._add_listed(key, Path(key).name, visible=True)
            series = self._fresh_series(series)  # the follow reads the run from the top
            series.visible, series.followed = True, True
            self._follow_state[key] = {"since": time.monotonic(), "last": None, "step": 0,
                                       "checkpoint": None}
            self.run_list.set_following(key, True)
            self.run_list.set_checked(key, True)
            self.run_list.select(key)
        else:
            if series is not None:
                series.followed = False
            self._follow_state.pop(key, None)
            self.run_list.set_following(key, False)
        self._update_timer()
        self._refresh_runs()
        self._show_follow_status()

    def _fresh_series(self, old: RunSeries) -> RunSeries:
        """An empty series in the old one's place (the follow reads the run from the top)."""
        series = RunSeries(old.key, old.name, old.colour, visible=old.visible, task=old.task)
        series.version = max(old.version, 0) + 1
        self.series[old.key] = series
        return series

    @Slot(str, object)
    def _on_follow_event(self, key: str, event: Event) -> None:
        series, state = self.series.get(key), self._follow_state.get(key)
        if series is None or state is None:
            return
        if isinstance(event, RunGrew):
            self._grow(series, event)
            state["last"] = time.monotonic()
            if series.train.size:
                state["step"] = int(series.train["step"][-1])
        elif isinstance(event, CheckpointLoaded):
            state["checkpoint"] = (event.kind, event.step, event.max_steps)
            state["step"] = max(state["step"], event.step)
        self._show_follow_status()

    def _grow(self, series: RunSeries, event: RunGrew) -> None:
        shown = self.run_list.current_key() == series.key
        if event.name and event.name != series.name and series.name == Path(series.key).name:
            series.name = event.name  # the run's own name, unless the user renamed it here
            self.run_list.show_name(series.key, series.name)
        if event.restarted:
            series = self._fresh_series(series)
            series.followed = True
            self.controller.notice.emit(f"{series.name} was rewritten (resumed or restarted); "
                                        "its curves are read again.")
            if shown:
                self.samples.show_samples([])
        series.task = event.task
        if event.unit and event.unit != self.curves.unit and self.controller.tokens is None:
            self.curves.set_unit(event.unit)  # no corpus here: title as the followed run counts
        for item in event.events:
            series.add(item)
        series.samples.extend(event.samples)
        series.version += 1
        if shown:
            for sample in event.samples:
                self.samples.add(sample)
        if event.skipped_lines:
            self.controller.notice.emit(f"{event.skipped_lines} damaged lines of {series.name} "
                                        "were skipped.")
        if event.restarted:
            self._refresh_runs()

    def _show_follow_status(self) -> None:
        """One line per followed run: its step, its checkpoint, the time since its last line."""
        parts = []
        now = time.monotonic()
        for key, state in self._follow_state.items():
            series = self.series.get(key)
            name = series.name if series is not None else Path(key).name
            text = f"<b>{name}</b>: "
            checkpoint = state["checkpoint"]
            total = checkpoint[2] if checkpoint else 0
            if state["last"] is None and checkpoint is None:
                text += "waiting for the run to write its first lines"
            else:
                text += f"step {state['step']:,}" + (f" of {total:,}" if total else "")
                if total and checkpoint and checkpoint[1] >= total:
                    text += " (finished)"
                if checkpoint:
                    text += (f" · inspectors show its {checkpoint[0]} checkpoint "
                             f"(step {checkpoint[1]:,})")
            if state["last"] is not None:
                quiet = now - state["last"]
                text += f" · last line {_ago(quiet)}"
                if quiet > STALE_S and not (total and checkpoint and checkpoint[1] >= total):
                    text += " <span style='color:#D55E00'>(no new lines: stopped?)</span>"
            parts.append(text)
        self.follow_bar.show_status("Following " + " · ".join(parts) if parts else "")

    def _update_timer(self) -> None:
        if self.live_key or self._follow_state:
            self.timer.start()
        else:
            self.timer.stop()
            self.curves.redraw()


def _ago(seconds: float) -> str:
    if seconds < 2:
        return "just now"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    return f"{seconds / 60:.0f} min ago"


class FollowBar(QWidget):
    """The status line of followed runs, with a Stop following button; hidden when none."""

    stop_clicked = Signal()
    tick = Signal()  # once a second while shown: 'last line N s ago' moves on

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setToolTip("Runs another process writes (Training ▸ Follow run folder, or "
                              "workbench --follow RUN_DIR): their curves and samples grow as "
                              "they are written, and each new checkpoint goes to the "
                              "inspectors and the console.")
        self.stop = QPushButton("Stop following")
        self.stop.setToolTip("Stop watching (the selected run, else every followed run); the "
                             "run itself goes on and is not changed")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.stop)
        self.setStyleSheet("FollowBar { background: #EAF2FA; border-radius: 3px; }")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.stop.clicked.connect(self.stop_clicked)
        self._timer = QTimer(self, interval=1000)
        self._timer.timeout.connect(self.tick)
        self.hide()

    def show_status(self, text: str) -> None:
        self.label.setText(text)
        self.setVisible(bool(text))
        if text and not self._timer.isActive():
            self._timer.start()
        elif not text:
            self._timer.stop()
