"""What the headless commands print when a job fails.

A failure the app foresaw is one clear line: a `UserFacingError`, and the failures whose
message already says what happened and what to do (`jobs.user_message`: out of memory, a full
or read-only disk, permission denied, a missing file). Any other failure is a bug: its
message is printed, and its traceback is written to a log file named in the message (the
window has a Details button for it; a terminal has none, and a traceback after every wrong
path buried the message). `--debug` (or WORKBENCH_DEBUG=1) prints the traceback instead."""

from __future__ import annotations

import os
import time
from pathlib import Path

from workbench.core.events import JobFailed
from workbench.core.jobs import UserFacingError

DEBUG_ENV = "WORKBENCH_DEBUG"
LOG_ENV = "WORKBENCH_LOG_DIR"
_DETAILS_SENTENCE = "the Details hold what a developer needs to fix it."


def failure_text(event: JobFailed) -> str:
    if foreseen(event.error_type) or not event.detail:
        return event.message
    if os.environ.get(DEBUG_ENV) == "1":
        return f"{event.message}\nDetails:\n{event.detail.rstrip()}"
    log = write_crash_log(event)
    if log is None:  # nowhere to write it: the traceback is better printed than lost
        return f"{event.message}\nDetails:\n{event.detail.rstrip()}"
    where = f"{log} holds what a developer needs to fix it (--debug prints it here)."
    if _DETAILS_SENTENCE in event.message:
        return event.message.replace(_DETAILS_SENTENCE, where)
    return f"{event.message} {where[0].upper()}{where[1:]}"


def foreseen(error_type: str) -> bool:
    """Whether a failure of this type has a message a user can act on, and no bug behind it."""
    return error_type in _names_of(UserFacingError) | _names_of(OSError) | {"MemoryError"}


def log_folder() -> Path:
    override = os.environ.get(LOG_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_log_dir("sequence-workbench"))


def write_crash_log(event: JobFailed) -> Path | None:
    """The traceback in a new file of the log folder; None when it cannot be written."""
    folder = log_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"failure-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(f"{event.message}\n\n{event.detail}", encoding="utf-8")
    except OSError:
        return None
    return path


def _names_of(cls: type) -> set[str]:
    """The class's name and its subclasses' (a failure carries its type by name)."""
    return {cls.__name__}.union(*(_names_of(sub) for sub in cls.__subclasses__()))
