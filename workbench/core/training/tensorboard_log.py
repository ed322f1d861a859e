"""TensorBoard event files beside metrics.jsonl, for practitioners who compare runs there.

With `[training] tensorboard = true` (the form's TensorBoard box, `workbench train
--tensorboard`) the run log also hands each event the trainer emits to TensorBoard's own
writer (`torch.utils.tensorboard.SummaryWriter`), into `<run>/tensorboard/`:

    train/loss, train/learning_rate, train/grad_norm, train/tokens_per_s   every logged step
    val/loss, val/perplexity, val/bits_per_token, val/<metric>             every validation
                                                     (accuracy, F1, BLEU, ... as the task has)

`tensorboard --logdir <runs folder>` then shows every run side by side. TensorBoard is an
optional extra (`pip install "sequence-workbench[tensorboard]"`), imported only when a run asks
for it; without it the run refuses to start and says how to get it. A resumed run purges the
curve past its checkpoint's step, as metrics.jsonl's lines are (runs.truncate_after).
"""

from __future__ import annotations

import math
from pathlib import Path

from workbench.core.events import EvalLogged, Event, StepLogged
from workbench.core.jobs import UserFacingError
from workbench.core.training.runs import RunLog

FOLDER = "tensorboard"
FLUSH_EVERY_S = 5  # a TensorBoard watching a live run sees new points within seconds
MISSING = ("TensorBoard logging is on, but TensorBoard is not installed. Install the optional "
           "extra (pip install \"sequence-workbench[tensorboard]\", or pip install tensorboard) "
           "or turn TensorBoard off in the training settings.")


def scalars(event: Event) -> dict[str, float]:
    """The TensorBoard tags and values of one trainer event ({} for other events). Values
    that were not measured (NaN) or overflowed are left out, not drawn as gaps or spikes."""
    if isinstance(event, StepLogged):
        values = {"train/loss": event.loss, "train/learning_rate": event.lr,
                  "train/grad_norm": event.grad_norm, "train/tokens_per_s": event.tokens_per_s}
    elif isinstance(event, EvalLogged):
        values = {"val/loss": event.val_loss, "val/perplexity": event.perplexity,
                  "val/bits_per_token": event.bits_per_token}
        values.update({f"val/{name}": value for name, value in event.metrics.items()})
    else:
        return {}
    return {tag: float(value) for tag, value in values.items()
            if isinstance(value, (int, float)) and math.isfinite(value)}


class TensorBoardLog:
    """Writes the scalars of the trainer's events with TensorBoard's writer."""

    def __init__(self, run_dir: Path, resumed_step: int | None = None) -> None:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:  # torch says "TensorBoard logging requires TensorBoard ..."
            raise UserFacingError(MISSING) from None
        # TensorBoard drops the points at and after purge_step; the checkpoint's own step
        # was logged before it was saved, so the purge starts one step later.
        purge = None if resumed_step is None else resumed_step + 1
        self.writer = SummaryWriter(log_dir=str(Path(run_dir) / FOLDER),
                                    purge_step=purge, flush_secs=FLUSH_EVERY_S)

    def write(self, event: Event) -> None:
        step = getattr(event, "step", None)
        for tag, value in scalars(event).items():
            self.writer.add_scalar(tag, value, step)

    def close(self) -> None:
        self.writer.close()


class RunLogWithTensorBoard:
    """metrics.jsonl and samples.jsonl as ever, and the same events to TensorBoard."""

    def __init__(self, run_dir: Path, resumed_step: int | None = None) -> None:
        self.tensorboard = TensorBoardLog(run_dir, resumed_step)  # refuses first when missing
        self.run_log = RunLog(run_dir)

    def write(self, event: Event) -> None:
        self.run_log.write(event)
        self.tensorboard.write(event)

    def close(self) -> None:
        try:
            self.run_log.close()
        finally:
            self.tensorboard.close()


def open_run_log(run_dir: Path, tensorboard: bool, resumed_step: int | None = None):
    """The writing rank's run log: metrics.jsonl, and TensorBoard's files when asked."""
    if tensorboard:
        return RunLogWithTensorBoard(run_dir, resumed_step)
    return RunLog(run_dir)
