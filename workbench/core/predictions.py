"""What the encoder tasks answer for a typed sentence (torch-free: the Qt room draws these).

The console runs the task's `predict` job on a snapshot's model; its result is one of these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClassifyPrediction:
    """A sentence's label distribution and how much each token pushed the decision."""

    text: str
    tokens: tuple[str, ...]  # the tokens as read (what the contributions sit over)
    labels: tuple[str, ...]
    probs: np.ndarray  # (K,) softmax over the labels
    contributions: np.ndarray  # (S,) one number per token
    method: str  # "attention" (pooling weights α, ≥ 0, sum 1) or "gradient" (gradient × input)
    explanation: str  # what the numbers are, in a sentence the view shows

    @property
    def predicted(self) -> str:
        return self.labels[int(np.argmax(self.probs))]


@dataclass(frozen=True)
class TagPrediction:
    """Each word's tag distribution (the tag of a word is read at its first token)."""

    text: str
    words: tuple[str, ...]
    tags: tuple[str, ...]  # the tag set
    probs: np.ndarray  # (W, n_tags)
    gold: tuple[str, ...] | None = None  # known tags (a sentence of the data set)

    @property
    def predicted(self) -> tuple[str, ...]:
        return tuple(self.tags[i] for i in np.argmax(self.probs, axis=1))


@dataclass(frozen=True)
class FillMaskPrediction:
    """For each [MASK] of a sentence, the most likely tokens (seed 002's "what have language
    models learned" probe)."""

    text: str
    tokens: tuple[str, ...]  # the sentence as read, "[MASK]" where masked
    masked: tuple[int, ...]  # positions of the masks in `tokens`
    candidates: tuple[tuple[str, ...], ...]  # per mask, the top tokens
    probs: np.ndarray  # (masks, k) their probabilities
    # a pair "A ||| B": each token's segment (0 for [CLS] A [SEP], 1 for B [SEP]); () for one
    # sentence. is_next: P(IsNext) of a model with next-sentence prediction, else None
    segments: tuple[int, ...] = ()
    is_next: float | None = None


Prediction = ClassifyPrediction | TagPrediction | FillMaskPrediction  # an encoder task's answer
