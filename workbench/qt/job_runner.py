"""The job thread: runs one core job at a time and re-emits its events on the GUI thread.

The core job is a generator (see `workbench.core.jobs`); `drive` checks stop and pause between
its events. The QThread only iterates it and emits each event through a queued signal, so the
receivers (slots of QObjects living on the GUI thread) never run on the worker thread.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import weakref

from PySide6.QtCore import QObject, QThread, Signal, Slot

from workbench.core.events import TERMINAL_EVENTS, Event, JobStarted, Progress
from workbench.core.heap import trim_free_memory
from workbench.core.jobs import JobControl, JobSpec, drive

# Every worker thread ever started, so the test suite can fail a test that leaves one running.
LIVE_THREADS: weakref.WeakSet[QThread] = weakref.WeakSet()
# Threads still running past their shutdown deadline (a gensim epoch cannot be interrupted).
# They are kept referenced, since destroying a running QThread aborts the process; the app
# ends the process without waiting for them (see `abandoned_threads`).
ABANDONED: list[QThread] = []
SHUTDOWN_WAIT_MS = 5_000
# How much nicer than the window a job thread is (Linux keeps a nice value per thread). On a
# 2-core laptop a training thread and a probe thread can hold both cores; at equal priority the
# GUI thread then queued for a core in most of its stalls (the soak benchmark's scheduler
# statistics: 8.5 of 12.8 stalled seconds). The window needs little CPU, so the job loses little.
WORKER_NICE = 4


def abandoned_threads() -> list[QThread]:
    """Threads given up on at shutdown that still run."""
    return [thread for thread in ABANDONED if thread.isRunning()]


class _WorkerThread(QThread):
    event_ready = Signal(object)

    def __init__(self, spec: JobSpec, control: JobControl) -> None:
        super().__init__()
        self._spec = spec
        self._control = control
        self.setObjectName(f"job: {spec.title}")

    def run(self) -> None:
        yield_cores_to_the_window()
        try:
            for event in drive(self._spec, self._control):
                self.event_ready.emit(event)
        finally:
            trim_free_memory()  # what the job freed goes back to the system (core/heap.py)


def yield_cores_to_the_window() -> None:
    """Lower the calling (worker) thread's priority below the GUI thread's. Linux: the thread's
    own nice value (Qt's thread priorities do nothing under Linux's default scheduler); other
    systems get QThread's LowPriority from `JobRunner.start`."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    # where a sandbox does not permit it, the job runs at the window's priority
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid)
                                                 + WORKER_NICE))


IDLE, RUNNING, PAUSED, STOPPING = "idle", "running", "paused", "stopping"


class JobRunner(QObject):
    """Owns at most one running job. `start` refuses a second one while the first runs.

    `state` is the one truth about the job that every control shows: "idle", "running",
    "paused" or "stopping" (asked to stop, its thread not ended yet).

    Signals:
      event(object): every event of the running job, in order, on the GUI thread;
      busy_changed(bool): a job started (True) or its thread has ended (False);
      state_changed(str): the state above changed (every Pause/Resume/Stop control follows it);
      progress(float, float, str, float): done, total (-1 unknown), message, ETA in s (-1 unknown).
    """

    event = Signal(object)
    busy_changed = Signal(bool)
    state_changed = Signal(str)
    progress = Signal(float, float, str, float)

    def __init__(self, name: str = "jobs", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._thread: _WorkerThread | None = None
        self._control: JobControl | None = None
        self.title = ""
        self.stop_note = ""
        self._started_at = 0.0
        self._progress_base: tuple[float, float] | None = None  # (time, done) the ETA counts from
        self._state = IDLE

    @property
    def busy(self) -> bool:
        return self._thread is not None

    @property
    def paused(self) -> bool:
        return self._control is not None and self._control.paused

    @property
    def state(self) -> str:
        return self._state

    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.state_changed.emit(state)

    def start(self, spec: JobSpec) -> bool:
        """Start `spec` on a new worker thread; False (and nothing started) if one is running."""
        if self._thread is not None:
            return False
        self._control = JobControl()
        thread = _WorkerThread(spec, self._control)
        thread.event_ready.connect(self._on_event)
        thread.finished.connect(self._on_thread_finished)
        self._thread = thread
        self.title = spec.title
        self.stop_note = spec.stop_note
        self._started_at = time.monotonic()
        self._progress_base = None
        LIVE_THREADS.add(thread)
        thread.start(QThread.Priority.LowPriority)
        self.busy_changed.emit(True)
        self._set_state(RUNNING)
        return True

    def cancel(self) -> None:
        if self._control is not None:
            self._control.stop()
            self._set_state(STOPPING)

    def pause(self) -> None:
        if self._control is not None and not self._control.stop_requested:
            self._control.pause()
            self._set_state(PAUSED)

    def resume(self) -> None:
        if self._control is not None and not self._control.stop_requested:
            self._control.resume()
            self._set_state(RUNNING)

    def toggle_pause(self) -> None:
        """Pause a running job, resume a paused one (every Pause/Resume control calls this)."""
        self.resume() if self.paused else self.pause()

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Block until the worker ends (used at shutdown and in tests); True if it ended."""
        thread = self._thread
        return thread is None or thread.wait(timeout_ms)

    def shutdown(self, timeout_ms: int = SHUTDOWN_WAIT_MS) -> bool:
        """Stop the running job and wait at most `timeout_ms` for its thread. True if it ended;
        False if it is still inside a step it cannot leave (it is then given up on: kept in
        ABANDONED, its events no longer delivered), so closing never hangs."""
        self.cancel()
        if self.wait(timeout_ms):
            if self._thread is not None:
                self._on_thread_finished()
            return True
        thread = self._thread
        thread.event_ready.disconnect(self._on_event)
        thread.finished.disconnect(self._on_thread_finished)
        ABANDONED.append(thread)
        self._thread, self._control, self.title = None, None, ""
        self.busy_changed.emit(False)
        self._set_state(IDLE)
        return False

    @Slot(object)
    def _on_event(self, event: Event) -> None:
        if isinstance(event, JobStarted):
            self._started_at = time.monotonic()
            self._progress_base = None
        if isinstance(event, Progress):
            self._emit_progress(event)
        self.event.emit(event)
        if isinstance(event, TERMINAL_EVENTS):
            self.progress.emit(0.0, 0.0, "", -1.0)

    def _emit_progress(self, event: Progress) -> None:
        """Progress with an ETA from the rate since the job's first measured progress: a
        resumed run reports its whole run's share (step 50 of 300 at its start), and counting
        those 50 steps as done in this job's time made the ETA far too short."""
        total = -1.0 if event.total is None else float(event.total)
        eta = -1.0
        now = time.monotonic()
        if event.total and self._progress_base is None:
            # from the job's start when it starts at 0, else from this first report
            self._progress_base = (self._started_at, 0.0) if event.done <= 0 \
                else (now, float(event.done))
        if event.total and self._progress_base is not None:
            since, done_before = self._progress_base
            if event.done > done_before:
                eta = (now - since) * (event.total - event.done) / (event.done - done_before)
        self.progress.emit(float(event.done), total, event.message, eta)

    @Slot()
    def _on_thread_finished(self) -> None:
        thread = self._thread
        if thread is None:
            return
        thread.wait()
        self._thread = None
        self._control = None
        self.title = ""
        thread.deleteLater()
        self.busy_changed.emit(False)
        self._set_state(IDLE)
