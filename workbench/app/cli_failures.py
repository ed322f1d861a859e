"""What the headless commands print when a job fails.

A failure the app foresaw (a `UserFacingError`) is its message alone. Any other failure's
message says that "the Details hold what a developer needs": the window has a Details button
for that; a terminal has no button, so the traceback follows the message. Before this the
train and generate commands printed the message and dropped the traceback, which left a CUDA
crash at the end of two presets' runs with nothing to go on."""

from __future__ import annotations

from workbench.core.events import JobFailed
from workbench.core.jobs import UserFacingError


def failure_text(event: JobFailed) -> str:
    expected = event.error_type in _names_of(UserFacingError)
    if expected or not event.detail:
        return event.message
    return f"{event.message}\nDetails:\n{event.detail.rstrip()}"


def _names_of(cls: type) -> set[str]:
    """The class's name and its subclasses' (a failure carries its type by name)."""
    return {cls.__name__}.union(*(_names_of(sub) for sub in cls.__subclasses__()))
