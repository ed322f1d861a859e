"""The controller: the one object panels talk through.

Panels never import each other. They read and set the session state here (corpus, tokens,
model configuration, latest snapshot) and are told of changes by its signals. Long work goes to
`jobs` (one at a time: corpus loading, training, word-vector training; a second is refused with
a message); short queries on snapshots and vectors (probes, summaries, generation, neighbour
searches) go to `run_query`, the query queue (`qt/query_queue.py`): they run one at a time
beside the long job, the newest request of each caller wins, and none is ever refused.

`backend` is typed by the Protocols of `workbench.core.api` (one per domain): the app passes
the real facades, the tests one shared fake (tests/qt/fake_backend.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from PySide6.QtCore import QObject, Signal, Slot

from workbench.core.api import Backend, CorpusOptions
from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.events import (
    CheckpointLoaded,
    Event,
    JobCancelled,
    JobFailed,
    JobFinished,
    JobOutcome,
    JobStopped,
    Notice,
)
from workbench.core.jobs import JobSpec
from workbench.core.snapshot import Snapshot
from workbench.qt.job_runner import SHUTDOWN_WAIT_MS, JobRunner
from workbench.qt.query_queue import QueryQueue
from workbench.qt.run_follower import RunFollower

if TYPE_CHECKING:
    from workbench.core.corpus.dataset import TokenizedCorpus
    from workbench.core.corpus.loading import Corpus
    from workbench.core.embeddings.bridge import EmbeddingInit

R = TypeVar("R")
ResultCallback = Callable[[Any], None]  # a job's result, as `JobSpec[R]` types it
ErrorCallback = Callable[[JobStopped], None]  # how a job ended when it did not finish


class WorkbenchController(QObject):
    corpus_changed = Signal(object)  # core Corpus
    tokens_changed = Signal(object)  # core TokenizedCorpus
    model_config_changed = Signal(object)  # core model config dataclass
    task_config_changed = Signal(object)  # core task config dataclass (core.config.tasks)
    snapshot_changed = Signal(object)  # core Snapshot (numpy weights)
    run_changed = Signal(object)  # a run directory (str) opened or started
    follow_event = Signal(str, object)  # a followed run folder, its RunGrew/CheckpointLoaded/...
    following_changed = Signal(str, bool)  # a run folder started (True) or ended being followed
    job_event = Signal(object)  # every event of the long-job runner
    error = Signal(str, str)  # message for the user, detail (traceback)
    notice = Signal(str)  # a warning or info line for the user
    # a lesson step asks the window to set something up: (action, value), e.g. ("panels",
    # ("attention",)), ("probe", "To be"); each panel acts on the actions it knows
    # (core/lessons/__init__.py)
    lesson_action = Signal(str, object)

    def __init__(self, backend: Backend, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.jobs = JobRunner("jobs", self)
        self.job_kind = ""  # what the running job is, as its starter said ("training")
        self.queries = JobRunner("queries", self)
        self.query_queue = QueryQueue(self.queries, self)
        self.query_queue.failed.connect(self.report_error)
        self.query_queue.notice.connect(self.notice)
        self.corpus: Corpus | None = None
        self.tokens: TokenizedCorpus | None = None
        self.model_config: ModelConfig | None = None
        self.task_config: TaskConfig | None = None  # None: a language model
        self.snapshot: Snapshot | None = None
        self.embedding_init: EmbeddingInit | None = None  # rows for the next model
        # The Corpus panel's filter and encoding (glob=, encoding=): every way of opening a
        # corpus (panel buttons, File menu, recent files, a dropped file) loads with them
        self.corpus_options: CorpusOptions = {}
        self.last_error = ""
        self._closed = False  # after shutdown no new work starts (late timers of closed panels)
        self.followers: dict[str, RunFollower] = {}
        self._pending: dict[str, tuple[ResultCallback | None, ErrorCallback | None]] = {}
        self._outcome: dict[str, JobOutcome | None] = {}
        self.jobs.event.connect(self._on_job_event)
        self.jobs.busy_changed.connect(self._on_jobs_busy)
        self.jobs.event.connect(self.job_event)

    # --- session state ------------------------------------------------------------------------

    def set_corpus(self, corpus: Corpus | None) -> None:
        self.corpus = corpus
        self.corpus_changed.emit(corpus)

    def set_tokens(self, tokens: TokenizedCorpus | None) -> None:
        self.tokens = tokens
        self.tokens_changed.emit(tokens)

    def set_model_config(self, config: ModelConfig | None) -> None:
        self.model_config = config
        self.model_config_changed.emit(config)

    def set_task_config(self, config: TaskConfig | None) -> None:
        self.task_config = config
        self.task_config_changed.emit(config)

    def set_snapshot(self, snapshot: Snapshot | None) -> None:
        self.snapshot = snapshot
        self.snapshot_changed.emit(snapshot)

    def open_corpus(self, path: str, **options: Unpack[CorpusOptions]) -> bool:
        """Load a corpus file or folder as a job; on success it becomes the session corpus.

        `options` override `corpus_options` (the Corpus panel's filter, encoding and
        cleaning)."""
        merged: CorpusOptions = {**self.corpus_options, **options}
        spec = self.backend.corpus.load_job(path, **merged)
        return self.run_job(spec, on_result=self.set_corpus)

    # --- following runs that other processes write ---------------------------------------------

    def follow_run(self, path: str) -> bool:
        """Watch a run folder another process writes (a headless or torchrun run, a synced
        folder): its lines arrive as `follow_event`, each new checkpoint becomes the snapshot.
        Each followed folder has its own thread, beside training and queries."""
        key = os.path.abspath(os.path.expanduser(path))  # keyed as the run list keys runs
        if self._closed or key in self.followers:
            return key in self.followers
        follower = RunFollower(key, self)
        follower.event.connect(self._on_follow_event)
        follower.failed.connect(self._on_follow_failed)
        follower.ended.connect(self._on_follow_ended)
        self.followers[key] = follower
        if not follower.start(self.backend.training.follow_job(key, follower.wake)):
            self.followers.pop(key).deleteLater()
            return False
        self.following_changed.emit(key, True)
        return True

    def stop_following(self, path: str) -> None:
        follower = self.followers.get(str(path))
        if follower is not None:
            follower.stop()

    @Slot(str, object)
    def _on_follow_event(self, key: str, event: Event) -> None:
        if isinstance(event, Notice):
            self.notice.emit(event.text)
        elif isinstance(event, CheckpointLoaded):
            self.set_snapshot(event.snapshot)
        self.follow_event.emit(key, event)

    @Slot(str, str, str)
    def _on_follow_failed(self, key: str, message: str, detail: str) -> None:
        self.report_error(message, detail)

    @Slot(str)
    def _on_follow_ended(self, key: str) -> None:
        follower = self.followers.pop(key, None)
        if follower is not None:
            follower.deleteLater()
            self.following_changed.emit(key, False)

    # --- running work -------------------------------------------------------------------------

    def run_job(
        self,
        spec: JobSpec[R],
        on_result: Callable[[R], None] | None = None,
        on_error: ErrorCallback | None = None,
        *,
        kind: str = "",
    ) -> bool:
        """Start a long job; refuse (with a message) while another one runs. `kind` says what
        it is ("training") while it runs (`job_kind`), for views that act on a training run
        and not on, say, the corpus being tokenized."""
        started = self._start(self.jobs, spec, on_result, on_error)
        if started:
            self.job_kind = kind
        return started

    def run_query(
        self,
        spec: JobSpec[R],
        on_result: Callable[[R], None] | None = None,
        on_error: ErrorCallback | None = None,
        *,
        caller: str = "",
        on_event: Callable[[Event], None] | None = None,
    ) -> bool:
        """Queue a short query (see `QueryQueue.submit`): it runs when the queries before it
        are done; a newer request of the same `caller` replaces it. False only after
        shutdown."""
        if self._closed:
            return False
        return self.query_queue.submit(spec, on_result, on_error, caller=caller,
                                       on_event=on_event)

    def _start(self, runner: JobRunner, spec: JobSpec[R], on_result: Callable[[R], None] | None,
               on_error: ErrorCallback | None) -> bool:
        if self._closed:
            return False
        if runner.busy:
            self.report_error(
                f"'{runner.title}' is still running. Wait for it to finish or cancel it first."
            )
            return False
        self._pending[runner.objectName()] = (on_result, on_error)
        self._outcome[runner.objectName()] = None
        return runner.start(spec)

    def report_error(self, message: str, detail: str = "") -> None:
        self.last_error = message
        self.error.emit(message, detail)

    @Slot(object)
    def _on_job_event(self, event: Event) -> None:
        name = self.jobs.objectName()
        if isinstance(event, (JobFinished, JobFailed, JobCancelled)):
            self._outcome[name] = event
        if isinstance(event, JobFailed):
            self.report_error(event.message, event.detail)
        elif isinstance(event, Notice):
            self.notice.emit(event.text)

    @Slot(bool)
    def _on_jobs_busy(self, busy: bool) -> None:
        """Result callbacks run once the worker thread has ended, so they may start new work."""
        if busy:
            return
        self.job_kind = ""
        name = self.jobs.objectName()
        on_result, on_error = self._pending.pop(name, (None, None))
        outcome = self._outcome.pop(name, None)
        if isinstance(outcome, JobFinished) and on_result is not None:
            on_result(outcome.result)
        elif isinstance(outcome, (JobFailed, JobCancelled)) and on_error is not None:
            on_error(outcome)

    def shutdown(self, timeout_ms: int = SHUTDOWN_WAIT_MS) -> bool:
        """Stop every runner and wait for their threads, together at most `timeout_ms`.
        Results still on their way are dropped: the panels that asked for them are being
        closed. False when a thread had to be given up on (still inside a step it cannot
        leave, such as a gensim epoch): the app then exits without waiting for it."""
        self._closed = True
        self._pending.clear()
        self.query_queue.close()
        deadline = time.monotonic() + timeout_ms / 1000
        for follower in list(self.followers.values()):
            follower.stop()  # all at once: each ends within one poll
        for runner in (self.jobs, self.queries):
            runner.cancel()  # all at once, then wait for each with what is left of the time
        clean = True
        for follower in list(self.followers.values()):
            clean &= follower.shutdown(_left_ms(deadline))
        for runner in (self.jobs, self.queries):
            clean &= runner.shutdown(_left_ms(deadline))
        return clean


def _left_ms(deadline: float) -> int:
    return max(1, int((deadline - time.monotonic()) * 1000))
