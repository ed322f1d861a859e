"""The query queue: short jobs on snapshots and vectors, one at a time, the newest of each caller.

Inspectors, the Architecture panel's summary, the Generate console, the run list and the word
explorer all ask short questions of the backend. One query thread answers them in turn, beside
the long job, so they never wait for training and never run on the GUI thread. Each request
names its caller (a stable string such as "inspector:gates"). A caller's newer request replaces
its request still waiting (keeping its place in the line), and cancels its request running, whose
result is then dropped: a caller that asked again only wants the answer to the new question.
Requests without a caller are never replaced (saving a file, opening a checkpoint).

So a panel never writes "the query thread is busy, try later": it submits, and its callback
runs when the answer is there. `state(caller)` says "waiting", "running" or "" for a panel that
shows that it is updating.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from workbench.core.events import (
    TERMINAL_EVENTS,
    Event,
    JobCancelled,
    JobFailed,
    JobFinished,
    JobStarted,
    Notice,
)
from workbench.core.jobs import JobSpec
from workbench.qt.job_runner import JobRunner

Callback = Callable[[Any], None]


@dataclass
class _Query:
    caller: str
    spec: JobSpec
    on_result: Callback | None
    on_error: Callback | None
    on_event: Callback | None
    superseded: bool = False


class QueryQueue(QObject):
    """Signals: `state_changed(caller, state)` ("waiting", "running", ""), `failed(message,
    detail)` for a query that raised and has no `on_error`, `notice(text)` for a query's
    Notice events."""

    state_changed = Signal(str, str)
    failed = Signal(str, str)
    notice = Signal(str)

    def __init__(self, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._waiting: OrderedDict[str, _Query] = OrderedDict()
        self._running: _Query | None = None
        self._outcome: Event | None = None
        self._anonymous = itertools.count()
        self._closed = False
        runner.event.connect(self._on_event)
        runner.busy_changed.connect(self._on_busy)

    # --- asking -------------------------------------------------------------------------------

    def submit(self, spec: JobSpec, on_result: Callback | None = None,
               on_error: Callback | None = None, *, caller: str = "",
               on_event: Callback | None = None) -> bool:
        """Queue `spec`; False only once the queue is closed (the window is closing).
        `on_result(result)` runs on the GUI thread after the query's thread ended, so it may
        submit more; `on_error(outcome)` gets the JobFailed or JobCancelled and shows the
        message where the caller sees fit (without one, a failure goes to `failed`, the
        window's error message); `on_event(event)` each event in between (a generation's
        tokens)."""
        if self._closed:
            return False
        key = caller or f"#{next(self._anonymous)}"
        query = _Query(key, spec, on_result, on_error, on_event)
        running = self._running
        if running is not None and running.caller == key and not running.superseded:
            running.superseded = True
            self.runner.cancel()  # acts between the query's events; its result is dropped
        self._waiting[key] = query  # a replaced request keeps its place in the line
        self.state_changed.emit(key, "waiting")
        self._start_next()
        return True

    def cancel(self, caller: str) -> None:
        """Forget the caller's waiting request and stop its running one (its on_error gets the
        JobCancelled)."""
        if self._waiting.pop(caller, None) is not None:
            self.state_changed.emit(caller, "")
        if self._running is not None and self._running.caller == caller:
            self.runner.cancel()

    def state(self, caller: str) -> str:
        if caller in self._waiting:
            return "waiting"
        running = self._running
        return "running" if running is not None and running.caller == caller else ""

    @property
    def busy(self) -> bool:
        return self._running is not None or bool(self._waiting)

    def close(self) -> None:
        """Drop every waiting request and the callbacks of the running one (shutdown)."""
        self._closed = True
        self._waiting.clear()
        if self._running is not None:
            self._running.superseded = True

    # --- running ------------------------------------------------------------------------------

    def _start_next(self) -> None:
        if self.runner.busy or not self._waiting or self._closed:
            return
        _, query = self._waiting.popitem(last=False)
        self._running, self._outcome = query, None
        self.state_changed.emit(query.caller, "running")
        if not self.runner.start(query.spec):  # cannot happen while not busy; never lose it
            self._running = None
            self._waiting[query.caller] = query

    @Slot(object)
    def _on_event(self, event: Event) -> None:
        query = self._running
        if query is None:
            return
        if isinstance(event, TERMINAL_EVENTS):
            self._outcome = event
            if isinstance(event, JobFailed) and not query.superseded \
                    and query.on_error is None:  # a caller with on_error says it itself
                self.failed.emit(event.message, event.detail)
        elif isinstance(event, Notice):
            self.notice.emit(event.text)
        elif not isinstance(event, JobStarted) and query.on_event is not None \
                and not query.superseded:
            query.on_event(event)

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        if busy:
            return
        query, outcome = self._running, self._outcome
        self._running, self._outcome = None, None
        if query is not None:
            if query.caller not in self._waiting:
                self.state_changed.emit(query.caller, "")
            if not query.superseded:
                if isinstance(outcome, JobFinished) and query.on_result is not None:
                    query.on_result(outcome.result)
                elif isinstance(outcome, (JobFailed, JobCancelled)) and query.on_error:
                    query.on_error(outcome)
        self._start_next()
