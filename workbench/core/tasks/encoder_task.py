"""The part of the classify, tag and masked-LM tasks that is the same: an encoder with a head,
whole sentences as batch rows, and validation in fixed batches.

A subclass names its head config (`model_config`), says what a batch carries beside the tokens
(`targets`) and how one batch scores (`score`), and turns the collected predictions into
metrics (`metrics`). Fine-tuning: when the data carries a pretrained encoder, `build_model`
takes the encoder's config and weights from it (and freezes it for the feature-based way).
"""

from __future__ import annotations

import dataclasses
import math
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from workbench.core.config.models import config_from_dict, config_to_dict
from workbench.core.jobs import UserFacingError
from workbench.core.tasks.base import Batch, Evaluation, Task
from workbench.core.tasks.sequences import epoch_rows, fixed_batches, pad
from workbench.core.tasks.text_data import TextVocabulary

EVAL_BATCH = 64


@dataclasses.dataclass
class Split:
    """Encoded examples of one split: token ids per example and the task's targets."""

    ids: list[np.ndarray]
    targets: list[Any]  # a label index per sentence, or tag indices per token
    texts: list[str]

    def __len__(self) -> int:
        return len(self.ids)


@dataclasses.dataclass
class EncoderData:
    """What an encoder task's `examples` returns."""

    vocabulary: TextVocabulary
    names: list[str]  # labels or tags ([] for masked-LM)
    train: Split
    val: Split
    test: Split
    pretrained: Any = None  # text_data.Pretrained, or None (from scratch)
    encoder: dict | None = None  # a resumed fine-tuning run's encoder config (no weights)
    notes: list[str] = dataclasses.field(default_factory=list)


class EncoderTask(Task):
    names_key = "labels"  # how the names are kept in the vocabulary dict

    # --- what a subclass says --------------------------------------------------------------------

    @abstractmethod
    def model_config(self, encoder: dict) -> Any:
        """The head config wrapping the encoder config dict."""

    @abstractmethod
    def targets(self, split: Split, rows: np.ndarray, tokens: np.ndarray, mask: np.ndarray,
                step: int | None) -> dict[str, np.ndarray]:
        """The arrays a batch carries beside the padded "tokens" and "mask" (it may replace
        "tokens", as masked-LM's corruption does); `step` None: a validation batch."""

    @abstractmethod
    def score(self, model, batch: Batch) -> tuple[torch.Tensor, int, np.ndarray, np.ndarray]:
        """(summed loss, items, true and predicted indices of the scored items)."""

    @abstractmethod
    def metrics(self, true: np.ndarray, predicted: np.ndarray) -> tuple[dict, dict]:
        """Named scalars and structured results of one validation."""

    # --- the protocol ----------------------------------------------------------------------------

    def vocabulary(self) -> dict:
        extra: dict[str, Any] = {self.names_key: list(self.data.names)} if self.data.names else {}
        encoder = self.data.encoder or (self.data.pretrained.encoder if self.data.pretrained
                                        else None)
        if encoder is not None:
            extra["pretrained_encoder"] = encoder  # a resume rebuilds it without the source run
        return self.data.vocabulary.to_dict(**extra)

    def build_model(self, model_config: Any, build: Callable[[Any], Any]):
        from workbench.core.models.encoder import encoder_architectures

        data = self.data
        encoder = data.encoder or (data.pretrained.encoder if data.pretrained else None)
        if encoder is None:
            if model_config.arch not in encoder_architectures():
                raise UserFacingError(f"'{model_config.title}' cannot read a whole sentence as "
                                      "an encoder. Choose an RNN, LSTM, GRU (bidirectional if "
                                      "you like) or the transformer encoder.")
            encoder = config_to_dict(dataclasses.replace(model_config,
                                                         vocab_size=data.vocabulary.size))
        model = build(self.model_config(dict(encoder)))
        if data.pretrained is not None:
            # the run's metadata may not describe its weights (edited, or another run's):
            # named here, on the budget check's 'meta' build, before any memory is taken
            from workbench.core.training.model_budget import check_fits

            check_fits({k: tuple(v.shape) for k, v in model.encoder.state_dict().items()},
                       data.pretrained.weights, f"The pretrained encoder {data.pretrained.source}")
            model.encoder.load_state_dict(data.pretrained.weights)
        if self.frozen:
            model.freeze_encoder()
        return model

    @property
    def frozen(self) -> bool:
        pretrained = self.data.pretrained is not None or self.data.encoder is not None
        return pretrained and getattr(self.config, "encoder_state", "trained") == "frozen"

    def start(self, model, training, device) -> None:
        self.device = device
        self.batch_size = training.batch_size
        self.seed = training.seed
        # validation reads at most `eval_batches` batches: the same first held-out sentences
        # every time (a masked-LM's held-out share of a large text would take minutes)
        self.val = _head(self.data.val, training.eval_batches * EVAL_BATCH)

    def rows_batch(self, split: Split, rows: np.ndarray, step: int | None) -> Batch:
        tokens, mask = pad([split.ids[i] for i in rows])
        arrays = {"tokens": tokens, "mask": mask,
                  **self.targets(split, rows, tokens, mask, step)}
        return Batch(arrays, tokens=int(mask.sum()))

    def batch(self, step: int) -> Batch:
        rows = epoch_rows(len(self.data.train), self.batch_size, step, self.seed)
        return self.rows_batch(self.data.train, rows, step)

    def prepare(self, model) -> None:
        """Before a training step: a frozen encoder stays in eval mode (no dropout), as the
        fixed feature extractor it is."""
        if self.frozen:
            model.encoder.eval()

    def has_validation(self) -> bool:
        return len(self.val) > 0

    def uniform_loss(self) -> float:
        """ln K for K labels or tags (the masked-LM task: ln |V|), which the divergence guard
        holds the losses against."""
        return math.log(max(len(self.data.names), 2))

    @torch.no_grad()
    def run_split(self, model, split: Split) -> tuple[float, np.ndarray, np.ndarray]:
        """Mean loss per scored item and the true / predicted indices over a whole split."""
        was_training = model.training
        model.eval()
        total, count, true, predicted = 0.0, 0, [], []
        try:
            for rows in fixed_batches(len(split), EVAL_BATCH):
                loss, items, t, p = self.score(model, self.rows_batch(split, rows, None).to(
                    self.device))
                total += float(loss)
                count += items
                true.append(t)
                predicted.append(p)
        finally:
            model.train(was_training)
        if not true:
            return float("nan"), np.zeros(0, np.int64), np.zeros(0, np.int64)
        return total / max(count, 1), np.concatenate(true), np.concatenate(predicted)

    def evaluate(self, model, amp: bool) -> Evaluation:
        loss, true, predicted = self.run_split(model, self.val)
        metrics, results = self.metrics(true, predicted)
        return Evaluation(loss, metrics, results)

    def test(self, model, amp: bool = False) -> Evaluation | None:
        """The held-out test split, scored as validation is (benchmarks, the final report)."""
        if not len(self.data.test):
            return None
        loss, true, predicted = self.run_split(model, self.data.test)
        metrics, results = self.metrics(true, predicted)
        return Evaluation(loss, metrics, results)


def encoder_from_vocabulary(vocabulary: dict | None) -> dict | None:
    """The encoder config a resumed fine-tuning run was built with (None: from scratch)."""
    if not vocabulary or "pretrained_encoder" not in vocabulary:
        return None
    encoder = dict(vocabulary["pretrained_encoder"])
    config_from_dict(encoder)  # readable, or a clear error now rather than at build time
    return encoder


def _head(split: Split, count: int) -> Split:
    return Split(split.ids[:count], split.targets[:count], split.texts[:count])
