"""Frozen event dataclasses that core jobs yield and the Qt room receives.

Everything here is plain Python, numpy arrays and scalars: the Qt room imports this module, so
it must never import torch or gensim (an import-linter contract checks that).

A job is a generator function `job(control) -> Iterator[Event]` (see `workbench.core.jobs`).
It yields `Progress` to drive the status bar, domain events for panels, and usually ends with
`JobFinished(result=...)`. The driver (`jobs.drive`) adds `JobFinished`, `JobCancelled` or
`JobFailed` when the generator ends without one, so a consumer always sees exactly one terminal
event last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """Base class of everything a job yields."""


@dataclass(frozen=True)
class JobStarted(Event):
    """First event of every driven job."""

    title: str


@dataclass(frozen=True)
class Progress(Event):
    """How far a job is. `total` is None when unknown (the bar then shows activity only)."""

    done: float
    total: float | None = None
    message: str = ""


@dataclass(frozen=True)
class Notice(Event):
    """A message for the user that is not an error: a warning about encoding, a skipped file."""

    text: str
    level: str = "warning"  # "info" | "warning"


@dataclass(frozen=True)
class JobFinished(Event):
    """The job ended normally; `result` is whatever the job produced (a Corpus, a run dir...)."""

    result: Any = None


@dataclass(frozen=True)
class JobCancelled(Event):
    """The job stopped because the user asked; partial results stay where the job put them."""

    reason: str = "cancelled by user"


@dataclass(frozen=True)
class JobFailed(Event):
    """The job raised. `message` is for the user; `detail` is the traceback for the log."""

    message: str
    detail: str = ""
    error_type: str = ""


TERMINAL_EVENTS = (JobFinished, JobCancelled, JobFailed)
JobOutcome = JobFinished | JobCancelled | JobFailed  # how a job ended: its last event
JobStopped = JobCancelled | JobFailed  # what an `on_error` callback receives


def failure_text(outcome: JobOutcome | None) -> str:
    """A failed job's message for the user; '' for a cancelled (or finished) one, which each
    caller words in its own way ("Cancelled.")."""
    return outcome.message if isinstance(outcome, JobFailed) else ""


# --- training (issue 4) ---------------------------------------------------------------------


@dataclass(frozen=True)
class RunStarted(Event):
    """A training run has its folder; `resumed_step` > 0 when it continues a checkpoint."""

    run_dir: str
    name: str
    resumed_step: int = 0
    task: str = "language_model"  # the task's name: the Training panel plots its curves
    grad_clip: float = 0.0  # the clipping threshold on ‖g‖₂ (0: none), drawn on its curve


@dataclass(frozen=True)
class StepLogged(Event):
    """One optimisation step (the trainer logs every N steps, not necessarily every step)."""

    step: int
    loss: float
    lr: float
    grad_norm: float
    clipped: bool
    tokens_seen: int
    tokens_per_s: float
    elapsed_s: float
    clip_rate: float = 0.0  # share of the steps since the last log where clipping acted


@dataclass(frozen=True)
class EvalLogged(Event):
    """Validation on the held-out split: the task's mean loss (nats per target token) and its
    named metrics.

    `metrics` holds every scalar by name, `val_loss` included: a language model adds
    "perplexity" (exp of the loss) and "bits" (loss / ln 2), a sequence-to-sequence task
    "token_accuracy" and "exact_match". The task's declared curves (core.config.tasks.Curve)
    name these keys. `results` holds structured results as plain Python/numpy values (an
    accuracy-by-length table, a confusion matrix), keyed by name.

    `perplexity` and `bits_per_token` are the fields run folders written before tasks existed
    carry; both ways in fill both ways out (nan for tasks without them), so old and new lines
    read the same."""

    step: int
    val_loss: float
    perplexity: float = math.nan
    bits_per_token: float = math.nan
    tokens_seen: int = 0
    elapsed_s: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        merged = {"val_loss": self.val_loss}
        for name, value in (("perplexity", self.perplexity), ("bits", self.bits_per_token)):
            if not math.isnan(value):
                merged[name] = value
        merged.update(self.metrics)
        object.__setattr__(self, "metrics", merged)
        object.__setattr__(self, "perplexity", merged.get("perplexity", math.nan))
        object.__setattr__(self, "bits_per_token", merged.get("bits", math.nan))

    def metric(self, name: str) -> float:
        """A metric by name; nan when this validation did not measure it."""
        return float(self.metrics.get(name, math.nan))


@dataclass(frozen=True)
class TestLogged(Event):
    """The test figure: the model of the 'best' checkpoint (the best validation) scored once on
    the held-out test split, which no validation looked at. Logged when a run ends, and
    computed on request for a finished run. `step` is where the run stood, `checkpoint_step`
    the step of the model scored; `metrics` holds the task's metrics by name, `test_loss`
    included (nats per the task's unit, as the validation loss)."""

    __test__ = False  # an event, not a pytest test class

    step: int
    test_loss: float
    checkpoint_step: int
    checkpoint: str = "best"  # "best", or "latest" when no validation ever made a best
    metrics: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class DivergenceHandled(Event):
    """The divergence guard rolled back a bad step and lowered the learning rate."""

    step: int
    reason: str
    new_lr: float
    attempt: int
    resumed_at: int = 0  # the step training restarts from (the last good copy)


@dataclass(frozen=True)
class SampleGenerated(Event):
    """Text sampled from the model during training, so the user watches it learn."""

    step: int
    text: str


@dataclass(frozen=True)
class SnapshotReady(Event):
    """A CPU copy of the weights (numpy) plus everything needed to rebuild the model."""

    snapshot: Any  # workbench.core.snapshot.Snapshot (torch-free)


@dataclass(frozen=True)
class CheckpointSaved(Event):
    step: int
    path: str
    kind: str = "latest"  # "latest" | "best"


@dataclass(frozen=True)
class RunGrew(Event):
    """Lines another process added to a followed run folder (core/training/run_follow.py)."""

    run_dir: str
    name: str
    events: tuple[Event, ...] = ()
    samples: tuple[SampleGenerated, ...] = ()
    skipped_lines: int = 0
    restarted: bool = False  # the files were rewritten: these replace everything read before
    task: str = "language_model"  # the run's task (from its recipe): which curves to plot
    unit: str = ""  # "character" or "token": what its tokenizer counts ("" when unknown)


@dataclass(frozen=True)
class CheckpointLoaded(Event):
    """A followed run wrote a new checkpoint; `snapshot` holds its weights for inspection."""

    run_dir: str
    kind: str  # "latest" | "best"
    step: int
    max_steps: int
    snapshot: Any  # workbench.core.snapshot.Snapshot


@dataclass(frozen=True)
class EpochEnded(Event):
    """End of an epoch (word-vector training, or a pass over the corpus)."""

    epoch: int
    metrics: dict[str, float] = field(default_factory=dict)


# --- inspection and generation (issue 6) -----------------------------------------------------


@dataclass(frozen=True)
class TokenGenerated(Event):
    """One token the generation console shows as it streams (sent in `TokensGenerated`).

    `probability`, `entropy` (nats) and `rank` (0 = most likely) describe the distribution the
    token was drawn from (after temperature, before top-k/top-p truncation, so a user sees how
    unlikely a sampled token was). `alternatives` are the top (token text, probability) pairs.
    """

    index: int  # position in the generated continuation, from 0
    token_id: int
    text: str
    probability: float
    entropy: float
    rank: int
    alternatives: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class TokensGenerated(Event):
    """The tokens generated since the last batch, in order: a generation sends its tokens a
    time slice at a time (the first at once), not one event per token, so neither its thread
    nor the console's spends more on the message than on the token."""

    tokens: tuple[TokenGenerated, ...]


# --- sequence to sequence (issue 11) ---------------------------------------------------------


@dataclass(frozen=True)
class DecodedToken(Event):
    """One output token of a sequence-to-sequence model, as the console streams it: its
    probability, the top alternatives (text, probability) at that step, and the attention row
    α_i over the source tokens (empty for a model without attention)."""

    index: int  # position in the output, from 0
    token_id: int
    text: str
    probability: float
    alternatives: tuple[tuple[str, float], ...] = ()
    attention: tuple[float, ...] = ()
