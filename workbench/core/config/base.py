"""The members the window reads of every model and task config (torch-free).

Every model config derives from `ModelConfig` and every task config from `TaskConfig`. The
bases declare, with a neutral default, what the Qt room asks of any config (a title, the tasks
an architecture learns, its problems, its vocabularies, an encoder task's head), so a panel
reads them as typed members instead of discovering them with `hasattr`. The bases are plain
classes, not dataclasses: their annotations add no field to the configs' forms or recipes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from workbench.core.config.fields import range_problems


class ModelConfig:
    """A model's settings: the registry's key and title, what it can learn, and its checks."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # each subclass is a dataclass

    arch: ClassVar[str] = ""
    title: ClassVar[str] = ""
    language_model: ClassVar[bool] = False  # also a next-token model (not only an encoder)
    tasks: ClassVar[tuple[str, ...]] = ()  # the other tasks it can learn (architectures_for)
    bidirectional: bool = False  # reads right to left too (a language model must not)

    def problems(self) -> list[str]:
        """Readable messages; empty when the settings are valid."""
        return range_problems(self)

    def encoder_config(self) -> ModelConfig | None:
        """The encoder's config of an encoder with a head (classifier, tagger, masked LM)."""
        return None

    def longest_sequence(self) -> int | None:
        """The most positions the model reads (a transformer's context); None: any."""
        return None

    def vocab_sizes(self) -> dict[str, int]:
        """The vocabulary fields and their sizes (0 = not known yet): `vocab_size` for a model
        of one vocabulary, `source_vocab_size` and `target_vocab_size` for an encoder-decoder.
        They come from the data when a model is built, never from a form."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: int(getattr(self, f.name)) for f in dataclasses.fields(self)
                if f.name.endswith("vocab_size")}


@dataclass(frozen=True)
class Curve:
    """One plot of the Training panel: a validation metric and, optionally, the training view
    drawn with it.

    `metric` is a key of `EvalLogged.metrics`; `train` names a view of the training loss the
    panel also draws in this plot ("loss", "perplexity" = exp(loss), "bits" = loss / ln 2), or
    None for a metric that exists only at validation (an accuracy). `unit` is "percent" for a
    share in [0, 1] that the axis shows as 0-100 %."""

    metric: str
    title: str
    train: str | None = None
    log_ok: bool = True  # may follow the panel's "Log y" box (accuracies should not)
    unit: str = ""
    short: str = ""  # the name a one-line summary uses ("bits", "exact match")
    # a metric only some runs of the task log (a task option's, e.g. next-sentence accuracy):
    # plotted only when a shown run has logged it, not as an empty plot beside the others
    optional: bool = False


@dataclass(frozen=True)
class ResultPlot:
    """A plot of a structured validation result (not a curve over training): the latest
    `EvalLogged.results[key]` of each run, its `x` list against its `y` list (for instance
    exact match against input length)."""

    key: str
    x: str
    y: str
    title: str
    x_label: str = ""
    unit: str = ""  # "percent": y values are shares shown as 0-100 %
    reference: str = ""  # a second y list drawn grey beside it (the truth a forecast meets)


class TaskConfig:
    """A task's settings and what the window shows of it (see core/config/tasks.py)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # each subclass is a dataclass

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    short_title: ClassVar[str] = ""  # where space is short: a tab of the training curves
    # its shape in the course's taxonomy (seed 001): "next" (many to many, one step ahead),
    # "one" (many to one), "aligned" (many to many, one output a token), "masked" (the hidden
    # tokens), "pairs" (an encoder-decoder, lengths free); the task picker draws it
    io_shape: ClassVar[str] = ""
    needs_corpus: ClassVar[bool] = False  # reads the session's tokenized corpus
    curves: ClassVar[tuple[Curve, ...]] = ()
    result_plots: ClassVar[tuple[ResultPlot, ...]] = ()
    inspectors: ClassVar[tuple[str, ...]] = ()
    # an encoder task: trains a head on the encoder picked in the Architecture panel, which
    # counts the whole model (`model_for_counts`) with `counted_labels` outputs by default
    encoder_head: ClassVar[bool] = False
    counted_labels: ClassVar[int] = 0
    counts_vocabulary: ClassVar[bool] = True  # its model reads tokens (not numbers)

    def problems(self) -> list[str]:
        return range_problems(self)

    def data_summary(self) -> str:
        """The data in a few words, for the Training panel ('' = nothing to add)."""
        return ""

    def data_name(self) -> str:
        """The data's short name, for naming a run ('dates', 'sentiment')."""
        return self.name

    def model_for_counts(self, encoder: Any, labels: int = 0) -> ModelConfig | None:
        """An encoder task's whole model (`encoder` with the task's head for `labels` labels)
        as the Architecture panel counts it; None for a task without a head of its own."""
        return None
