"""The Training panel's live run: the events of the run training in this window, as they
arrive on the GUI thread. Each is appended to the run's series (the ~30 Hz timer redraws), a
resumed run is keyed by its folder, and its end is said where the user will see it.
"""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QApplication

from workbench.core.events import (
    TERMINAL_EVENTS,
    DivergenceHandled,
    Event,
    JobFailed,
    JobFinished,
    JobStarted,
    RunStarted,
    SampleGenerated,
    SnapshotReady,
)


class LiveRunEvents:
    """Mixed into TrainingPanel (it provides controller, live_key, series, run_list, samples,
    curves, controls, timer, last_notice and show_header/_refresh_runs/_update_timer)."""

    @Slot(object)
    def _on_job_event(self, event: Event) -> None:
        if not self.live_key:
            return
        if isinstance(event, JobStarted):
            self.controls.set_running(True)
            self.timer.start()
        elif isinstance(event, RunStarted):
            self._adopt_folder(event)
        elif isinstance(event, SnapshotReady):
            self.controller.set_snapshot(event.snapshot)
        elif isinstance(event, TERMINAL_EVENTS):
            self._announce_end(event)
            self._end_live()
        else:
            self.series[self.live_key].add(event)
            shown = self.run_list.current_key() == self.live_key
            if isinstance(event, SampleGenerated) and shown:
                self.samples.add(event)
            elif isinstance(event, DivergenceHandled):
                text = (f"Step {event.step}: {event.reason}. Rolled back to step "
                        f"{event.resumed_at}; learning rate now {event.new_lr:.3g} "
                        f"(try {event.attempt} of 3).")
                self.controller.notice.emit(text)
                if shown:
                    self.samples.appendPlainText(f"── {text} ──")

    def _adopt_folder(self, event: RunStarted) -> None:
        """Key the live run by its folder (a resumed run keeps its curve up to its checkpoint)."""
        series = self.series.pop(self.live_key)
        series.task, series.grad_clip = event.task, event.grad_clip
        self.curves.show_task(event.task)  # its task's tab comes forward
        if event.resumed_step:
            series.truncate_after(event.resumed_step)
            series.samples = [s for s in series.samples if s.step <= event.resumed_step]
            series.version += 1
        old, series.key = self.live_key, event.run_dir
        self.series[event.run_dir] = series
        self.run_list.rekey(old, event.run_dir)
        self.live_key = event.run_dir
        self.controller.backend.training.update_run(event.run_dir, name=series.name,
                                                    colour=series.colour)
        self.controller.run_changed.emit(event.run_dir)
        self._refresh_runs()
        self.show_header(event.run_dir)

    def _announce_end(self, event: Event) -> None:
        """Say that training ended, and how, where the user will see it: the status bar, the
        sample log, and the taskbar (the window asks for attention when it is not in front)."""
        series = self.series.get(self.live_key)
        if series is None or isinstance(event, JobFailed):  # a failure has its own message
            return
        step = int(series.train["step"][-1]) if series.train.size else 0
        if isinstance(event, JobFinished):
            val = series.val["val_loss"] if series.val.size and "val_loss" in series.val else []
            loss = f", validation loss {float(val[-1]):.3f}" if len(val) else ""
            text = f"Training finished: {series.name}, {step:,} steps{loss}."
        else:
            text = (f"Training stopped: {series.name} at step {step:,}. Its latest checkpoint "
                    "is kept: right-click the run in the list to resume it.")
        self.last_notice = text
        self.controller.notice.emit(text)
        if self.run_list.current_key() == self.live_key:
            self.samples.appendPlainText(f"── {text} ──")
        QApplication.alert(self.window())

    def _end_live(self) -> None:
        if self.live_key in self.series:
            self.series[self.live_key].live = False
            self.run_list.set_live(self.live_key, False)
            self.show_header(self.live_key)  # no longer "training here"
        self.live_key = ""
        self._update_timer()
        self.curves.redraw()
        self.controls.set_running(False)

    def _on_failed(self, _outcome) -> None:
        self._end_live()

    @Slot(float, float, str, float)
    def _on_progress(self, done: float, total: float, message: str, eta: float) -> None:
        if self.live_key and total > 0:
            self.controls.show_progress(done, total, message, eta)

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        if not busy and self.live_key:
            self._end_live()
        if not self.live_key:
            self.controls.set_running(False)
            self.controls.start.setEnabled(not busy and not self.controls.form.problems())
