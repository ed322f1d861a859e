"""Tasks behind one protocol and one registry (DESIGN.md section 3b): what a model learns to do.

Importing the package registers every task. `build_task(config, data)` makes the task a config
names; the torch-free configs live in `workbench.core.config.tasks`.
"""

from typing import Any

from workbench.core.tasks import (  # noqa: F401 - registers the tasks
    classify,
    forecast,
    language_model,
    masked_lm,
    seq2seq,
    tag,
)
from workbench.core.tasks.base import (
    IGNORE_INDEX,
    Batch,
    Evaluation,
    Task,
    register_task,
    registered_tasks,
    task_class,
)


def build_task(config: Any, data: Any) -> Task:
    """The task `config` names, over its prepared `data`."""
    return task_class(config.name)(config, data)


__all__ = ["IGNORE_INDEX", "Batch", "Evaluation", "Task", "build_task", "register_task",
           "registered_tasks", "task_class"]
