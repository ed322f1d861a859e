"""Torch-free configuration dataclasses: what the Qt forms edit and recipes store.

Each field carries form metadata (`label`, `tooltip`, `min`, `max`, `step`, `choices`) so a panel
can generate its form from the dataclass alone. Validation lives in each config's `problems()`
method, which returns readable messages (an empty list means valid).
"""

# Importing the package registers every built-in task and architecture config, so a recipe or a
# checkpoint naming one can be read whichever module is imported first. The registries live in
# models.py and tasks.py; the families register themselves on import, here, so no registry
# module imports its own members (the import circles models <-> task_models and tasks <->
# encoder_tasks are gone).
from workbench.core.config import (  # noqa: F401
    encoder_tasks,
    forecast,
    models,
    seq2seq,
    task_models,
    tasks,
)
