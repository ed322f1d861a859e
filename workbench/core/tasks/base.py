"""The Task protocol (DESIGN.md section 3b): what the trainer asks of whatever a model learns.

The trainer knows a task only through these methods, in this order:

    data  = yield from TaskClass.examples(config, recipe, control, vocabulary)
    task  = TaskClass(config, data)
    model = task.build_model(model_config, build)    # the head fits the task's vocabularies
    task.start(model, training, device)              # batching plan, validation set, preview
    loop: batch = task.batch(step)                   # a pure function of the step: exact resume
          loss, carry = task.loss(model, batch.to(device), carry)
    task.evaluate(model, amp) -> Evaluation          # loss, named scalars, structured results
    task.preview(model, step) -> str                 # sampled text / decoded examples
    TaskClass.predict(model, vocabulary, text, settings) -> JobSpec   # the console

`carry` is whatever the task keeps from one batch to the next (a language model's hidden state
under truncated BPTT; None for most tasks). The trainer stores it opaquely, checkpoints it as a
flat list of tensors and hands it back through `restore_carry`, so no task detail leaks into
the loop. Tasks register themselves with `@register_task` under their config's `name`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import torch

from workbench.core.events import Event
from workbench.core.jobs import JobSpec

IGNORE_INDEX = -100  # targets at padded positions: F.cross_entropy skips them


@dataclass
class Batch:
    """One training or validation batch: padded arrays by name, masks among them.

    `arrays` holds numpy arrays until `to(device)` turns them into tensors. A language model
    batch has "inputs" (B, T) and "targets" (B, T); a sequence-to-sequence batch has "source"
    (B, S), "source_mask" (B, S) bool (True on real tokens), "target_in" (B, T) (<bos> y_1 ..),
    "target_out" (B, T) (y_1 .. <eos>, IGNORE_INDEX on padding) and "target_mask" (B, T).
    `tokens` is what the batch counts toward "tokens seen" (real tokens, padding left out).
    `fresh` is False when the batch continues the previous one (a carried state is kept).
    """

    arrays: dict[str, Any]
    tokens: int
    fresh: bool = True

    def to(self, device: torch.device) -> Batch:
        # non_blocking: a blocking copy to a GPU waits for all the work queued before it; from
        # pageable memory the driver stages the bytes at once, so the arrays may go right after
        blocking = torch.device(device).type != "cuda"
        moved = {k: (torch.from_numpy(v).to(device, non_blocking=not blocking)
                     if isinstance(v, np.ndarray) else v) for k, v in self.arrays.items()}
        return Batch(moved, self.tokens, self.fresh)

    def __getitem__(self, name: str) -> Any:
        return self.arrays[name]


@dataclass
class Evaluation:
    """One validation: the mean loss (nats per target token, which picks the best checkpoint),
    the task's named scalars (shown as curves) and structured results (accuracy by length, a
    confusion matrix) as plain Python/numpy values the Qt room can draw and JSON can keep."""

    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)


class Task(ABC):
    """Base class of every task; see the module docstring for the order of calls."""

    name: ClassVar[str] = ""

    def __init__(self, config: Any, data: Any) -> None:
        self.config = config
        self.data = data

    # --- data -----------------------------------------------------------------------------------

    @classmethod
    @abstractmethod
    def examples(cls, config: Any, recipe: Any, control: Any, vocabulary: dict | None = None
                 ) -> Generator[Event, None, Any]:
        """Read or generate the task's data (yielding progress); returns what `__init__` takes.
        `vocabulary` is `vocabulary()` of a saved run: a resumed run re-uses its token ids.
        A malformed file raises `UserFacingError` naming the line, and nothing is half-loaded."""

    @abstractmethod
    def vocabulary(self) -> dict:
        """What decodes this task's token ids (a tokenizer dict or several), kept in checkpoints
        and snapshots."""

    # --- model and training -----------------------------------------------------------------

    @abstractmethod
    def build_model(self, model_config: Any, build: Callable[[Any], Any]) -> torch.nn.Module:
        """The model for this task: `build(config)` with the config's vocabulary sizes set from
        the data (the head); raises `UserFacingError` when the architecture cannot do the task."""

    @abstractmethod
    def start(self, model: torch.nn.Module, training: Any, device: torch.device) -> None:
        """Fix the batching plan, validation set and preview for a run of `training`."""

    @abstractmethod
    def batch(self, step: int) -> Batch:
        """The training batch of `step`: the same for the same step, whatever came before."""

    @abstractmethod
    def loss(self, model: torch.nn.Module, batch: Batch, carry: Any) -> tuple[torch.Tensor, Any]:
        """Mean loss of a (device) batch with gradients, and the carry for the next batch,
        already cut from the graph."""

    def loss_weight(self, batch: Batch) -> float:
        """How many terms `loss` averages over in this batch. Under torchrun each rank gets
        some rows of the global batch; the trainer weighs its loss by its share of the terms,
        so N ranks learn what one process with the whole batch learns. The default counts
        rows (a mean over examples, or over rows of equal length); a loss averaged over the
        real tokens of padded rows returns the mask's sum."""
        return float(len(next(iter(batch.arrays.values()))))

    def restore_carry(self, model: torch.nn.Module, parts: list[torch.Tensor],
                      device: torch.device, rows: int) -> Any:
        """Rebuild a checkpointed carry from its flat tensors (no carry: None); `rows` is this
        process's share of the batch (all of it in one process, a rank's rows under torchrun)."""
        return None

    def has_validation(self) -> bool:
        """False when the data has too few held-out examples to validate on."""
        return True

    def uniform_loss(self) -> float | None:
        """The loss of a uniform guess over the outputs (ln of their number), which a trained
        model must beat: the divergence guard calls a loss well above it a blow-up, and no
        'best' checkpoint is one above it. None when the task has no such bound."""
        return None

    @abstractmethod
    def evaluate(self, model: torch.nn.Module, amp: bool) -> Evaluation:
        """Validation on the held-out examples (the same ones every time)."""

    def test(self, model: torch.nn.Module, amp: bool = False) -> Evaluation | None:
        """The held-out test split, scored as validation is (the test figure at the end of a
        run and on request); None when the task's data has no test split."""
        return None

    def validation_shard(self, rank: int, world_size: int) -> None:
        """Under torchrun: keep only rank `rank`'s share of the held-out examples, so the ranks
        validate in parallel and `merge_evaluations` combines their results. The default keeps
        them all: every rank scores everything and gets the same result (correct, not faster).
        Called after `start` by every trainer (one process: rank 0 of 1)."""
        return None

    def merge_evaluations(self, parts: list[Evaluation]) -> Evaluation:
        """One evaluation from every rank's, in rank order (see `validation_shard`); the
        default takes rank 0's, right when every rank scored everything."""
        return parts[0]

    @abstractmethod
    def preview(self, model: torch.nn.Module, step: int) -> str:
        """What the Training panel shows periodically (sampled text, decoded examples)."""

    # --- the console --------------------------------------------------------------------------

    @classmethod
    @abstractmethod
    def predict(cls, model: torch.nn.Module, vocabulary: dict, text: str, settings: Any
                ) -> JobSpec:
        """A job streaming the model's answer to `text` (a language model continues it, a
        sequence-to-sequence model decodes its output): what the console runs on a snapshot's
        model and `vocabulary`, with the task's own decoding settings."""


_TASKS: dict[str, type[Task]] = {}


def register_task(cls: type[Task]) -> type[Task]:
    """Class decorator: the trainer builds this task for configs named `cls.name`."""
    _TASKS[cls.name] = cls
    return cls


def task_class(name: str) -> type[Task]:
    from workbench.core.jobs import UserFacingError

    if name not in _TASKS:
        raise UserFacingError(f"No task is registered under the name '{name}'. Known: "
                              f"{', '.join(_TASKS)}.")
    return _TASKS[name]


def registered_tasks() -> list[str]:
    return list(_TASKS)
