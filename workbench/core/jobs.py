"""Jobs: generator functions that yield events, and the control that stops or pauses them.

A job is any callable `job(control: JobControl) -> Iterator[Event]`. It does its work in small
steps and yields between them. `drive` runs a job and checks the control between every two
events, so stop and pause take effect within one step without the job checking anything; long
inner loops may also call `control.check()` themselves.

This is the whole threading contract of the core: no Qt here. A test drives any job with
`list(drive(job, JobControl()))`; the Qt job thread does the same on its own thread.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from workbench.core import preload
from workbench.core.events import (
    TERMINAL_EVENTS,
    Event,
    JobCancelled,
    JobFailed,
    JobFinished,
    JobStarted,
)

Job = Callable[["JobControl"], Iterator[Event]]
Result = TypeVar("Result")


def run_to_end(steps: Generator[Any, None, Result]) -> Result:
    """What a step generator returns, its yields ignored: the plain call (for scripts, tests
    and the CLI) of work that a job runs step by step."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


class JobCancelledError(Exception):
    """Raised by `JobControl.check()` inside a job when the user asked it to stop."""


class UserFacingError(Exception):
    """A failure whose message is written for the user (a bad file, an invalid setting).

    The driver shows its text as is; any other exception becomes a written message
    (`user_message`), its type and traceback kept for the Details.
    """


class JobControl:
    """Stop and pause flags shared between the thread that runs a job and the one that owns it."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._running = threading.Event()  # set = not paused
        self._running.set()

    def stop(self) -> None:
        self._stop.set()
        self._running.set()  # a paused job must wake up to notice the stop

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def wait_if_paused(self) -> None:
        """Block while paused; returns at once when running or stopped."""
        while not self._running.wait(timeout=0.1):
            pass

    def check(self) -> None:
        """For long inner loops: wait while paused, raise `JobCancelledError` if stopped."""
        self.wait_if_paused()
        if self._stop.is_set():
            raise JobCancelledError


@dataclass(frozen=True)
class JobSpec(Generic[Result]):
    """A job with the title shown in the status bar. `JobSpec[R]` says (for readers and type
    checkers) that the job's `JobFinished.result` is an R."""

    title: str
    job: Job
    # said when the user asks to stop or quit, for a job that cannot stop at once (a gensim
    # epoch runs to its end); empty for jobs that stop within a step
    stop_note: str = ""


def describe_exception(exc: BaseException, doing: str = "") -> str:
    """The message a user sees for a failure: what happened and what to do, in words. No
    exception type name and no traceback (those go to the message box's Details)."""
    return user_message(exc, doing)


# errno codes whose meaning a user can act on (numbers, not names: Windows lacks some names)
_DISK_FULL = {28, 122}  # ENOSPC, EDQUOT
_READ_ONLY = {30}  # EROFS
_NOT_ALLOWED = {1, 13}  # EPERM, EACCES
_MISSING = {2, 20}  # ENOENT, ENOTDIR


def user_message(exc: BaseException, doing: str = "") -> str:
    """A written message for any exception. `doing` names the work ('Training lstm')."""
    if isinstance(exc, UserFacingError):
        return str(exc)
    where = f" while {doing[0].lower()}{doing[1:]}" if doing else ""
    if isinstance(exc, MemoryError):
        return (f"The computer ran out of memory{where}. Close other programs, or use a "
                "smaller corpus, model or batch, and try again.")
    if isinstance(exc, OSError):
        name = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        if exc.errno in _DISK_FULL:
            return (f"The disk is full{where}: a file could not be written{name}. Free some "
                    "space and try again; files already saved are intact.")
        if exc.errno in _READ_ONLY:
            return (f"The folder is on a read-only disk{where}, so nothing could be "
                    f"written{name}. Choose a folder you can write to.")
        if exc.errno in _NOT_ALLOWED:
            return (f"Permission denied{where}{name}. Check the permissions of the file or "
                    "folder, or choose another one.")
        if exc.errno in _MISSING:
            return f"A file or folder is missing{where}{name}. Check that it still exists."
        reason = exc.strerror or "an input/output error"
        return (f"The operating system reported {reason.lower()}{where}{name}. Check the "
                "disk or the network folder and try again.")
    return (f"Something went wrong that the app did not expect{where}. Try again; if it "
            "happens again, the Details hold what a developer needs to fix it.")


def drive(spec: JobSpec, control: JobControl) -> Iterator[Event]:
    """Run a job, yielding `JobStarted`, its events, and exactly one terminal event last.

    Between two events the driver waits while paused and stops the generator (closing it, so
    its `finally` blocks run) when a stop was requested.
    """
    yield JobStarted(spec.title)
    preload.wait_for_scipy()  # a job may import torch: not while scipy imports (core/preload)
    generator = spec.job(control)
    try:
        while True:
            control.wait_if_paused()
            if control.stop_requested:
                generator.close()
                yield JobCancelled()
                return
            try:
                event = next(generator)
            except StopIteration:
                yield JobFinished()
                return
            yield event
            if isinstance(event, TERMINAL_EVENTS):
                generator.close()
                return
    except JobCancelledError:
        yield JobCancelled()
    except Exception as exc:  # noqa: BLE001 - a job's failure must never kill the app
        yield JobFailed(
            message=describe_exception(exc, spec.title),
            detail=traceback.format_exc(),
            error_type=type(exc).__name__,
        )
