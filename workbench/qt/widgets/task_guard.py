"""Task views refuse a snapshot of a model trained for another task, saying what to do."""

from __future__ import annotations

from typing import Any

from workbench.core.jobs import UserFacingError


def require_task(snapshot: Any, task: str, what: str) -> None:
    name = getattr(snapshot, "task_name", "") or "language_model"
    if name != task:
        raise UserFacingError(f"This model was trained for '{name}', not to {what}. Train one "
                              "(Architecture panel: task) or open such a checkpoint.")
