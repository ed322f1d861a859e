"""Following one run folder that another process writes: a job thread of its own reads the
folder (core/training/run_follow.py) and a file-system watcher wakes it when a file changes.

The watcher only shortens the wait: synced and network folders often send no events, so the
job also looks every second on its own. Each follower has its own `JobRunner`, so following
never blocks training or the inspectors' queries, and stopping it ends only its thread; the run
itself is never written to.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Signal, Slot

from workbench.core.events import CheckpointLoaded, Event, JobFailed, Notice, RunGrew
from workbench.core.jobs import JobSpec
from workbench.qt.job_runner import JobRunner

WATCHED = ("", "checkpoints", "metrics.jsonl", "samples.jsonl", "checkpoints/latest.json",
           "checkpoints/best.json")


class RunFollower(QObject):
    event = Signal(str, object)  # run folder, a RunGrew / CheckpointLoaded / Notice / ...
    failed = Signal(str, str, str)  # run folder, message for the user, detail
    ended = Signal(str)  # the follow's thread has ended (stopped or failed)

    def __init__(self, run_dir: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.run_dir = run_dir
        self.wake = threading.Event()  # set: the job looks at the folder now
        self.loaded_step: int | None = None  # the step of the last checkpoint it loaded
        self.runner = JobRunner(f"follow {Path(run_dir).name}", self)
        self.runner.event.connect(self._on_event)
        self.runner.busy_changed.connect(self._on_busy)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_change)
        self.watcher.directoryChanged.connect(self._on_change)
        self._watch()

    def start(self, spec: JobSpec) -> bool:
        return self.runner.start(spec)

    @property
    def active(self) -> bool:
        return self.runner.busy

    @property
    def loading_checkpoint(self) -> bool:
        """The run has a checkpoint and none is loaded yet (the first look reads the metrics,
        then loads the checkpoint: torch and the weights take seconds)."""
        folder = Path(self.run_dir, "checkpoints")
        return self.active and self.loaded_step is None and any(
            (folder / f"{kind}.json").is_file() for kind in ("latest", "best"))

    def stop(self) -> None:
        """End the follow (its thread ends within one poll); the run goes on untouched."""
        self.runner.cancel()
        self.wake.set()

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        self.stop()
        return self.runner.shutdown(timeout_ms)

    def _watch(self) -> None:
        """Watch the folder, its checkpoints and its files, also those that appeared since (a
        file replaced by rename drops out of a watcher, so this is redone after each change)."""
        base = Path(self.run_dir)
        paths = [str(base / name) for name in WATCHED if (base / name).exists()]
        missing = [p for p in paths if p not in self.watcher.files() + self.watcher.directories()]
        if missing:
            self.watcher.addPaths(missing)

    @Slot(str)
    def _on_change(self, _path: str) -> None:
        self.wake.set()
        self._watch()

    @Slot(object)
    def _on_event(self, event: Event) -> None:
        if isinstance(event, JobFailed):
            self.failed.emit(self.run_dir, event.message, event.detail)
        elif isinstance(event, (RunGrew, CheckpointLoaded, Notice)):
            if isinstance(event, CheckpointLoaded):
                self.loaded_step = event.step
            self.event.emit(self.run_dir, event)

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        if not busy:
            watched = self.watcher.files() + self.watcher.directories()
            if watched:
                self.watcher.removePaths(watched)
            self.ended.emit(self.run_dir)
