"""Task views refuse a snapshot of a model trained for another task, saying what to do."""

from __future__ import annotations

from workbench.core.jobs import UserFacingError
from workbench.core.snapshot import Snapshot


def require_task(snapshot: Snapshot | None, task: str, what: str) -> None:
    name = (snapshot.task_name if snapshot is not None else "") or "language_model"
    if name != task:
        raise UserFacingError(f"This model was trained for '{name}', not to {what}. Train one "
                              "(Architecture panel: task) or open such a checkpoint.")
