"""The configurations of the encoder task models (torch-free): an encoder plus a head.

A classifier, a tagger or a masked-LM model is an encoder (any config `build_encoder` reads:
rnn, lstm, gru, transformer_encoder) with a head on top. The user picks and sets the encoder in
the Architecture panel; the task fills in the head (how many labels or tags, how to pool) from
its data and settings and wraps both in one of these configs, which is what checkpoints and
snapshots record (`encoder` holds the encoder's config dict, arch included), so any run folder
rebuilds its model. These configs are not offered in the Architecture panel themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from workbench.core.config.base import ModelConfig
from workbench.core.config.models import config_from_dict, register_config

POOLINGS = ("last", "mean", "max", "attention", "cls")
OUTPUTS = ("softmax", "sigmoid")
HEAD_ACTIVATIONS = ("gelu", "gelu_tanh", "relu")  # the transformer's ACTIVATIONS


@dataclass
class _EncoderHeadConfig(ModelConfig):
    arch: ClassVar[str] = ""
    title: ClassVar[str] = ""
    language_model: ClassVar[bool] = False
    tasks: ClassVar[tuple[str, ...]] = ()  # built by tasks, never picked in the panel
    encoder: dict[str, Any] = field(default_factory=dict)  # config_to_dict of the encoder

    def encoder_config(self) -> ModelConfig:
        return config_from_dict(dict(self.encoder))

    @property
    def vocab_size(self) -> int:
        return int(self.encoder.get("vocab_size", 0))

    def problems(self) -> list[str]:
        try:
            return list(self.encoder_config().problems())
        except (ValueError, TypeError) as exc:
            return [f"The encoder settings cannot be read: {exc}"]


@register_config
@dataclass
class ClassifierModelConfig(_EncoderHeadConfig):
    """Sequence -> label: pooled encoder states, then a linear layer and softmax (SLP3 9.4.2)."""

    arch: ClassVar[str] = "sequence_classifier"
    title: ClassVar[str] = "Sequence classifier"
    num_labels: int = 2
    pooling: str = "last"
    output: str = "softmax"  # "sigmoid": one unit for two labels, Keras' Dense(1, sigmoid)
    # [CLS] is the first token of the text, written by the tokenizer (a BERT folder's), not a
    # vector the encoder prepends: "cls" pooling reads position 0
    cls_in_text: bool = False
    pooler: bool = False  # BERT's pooler tanh(W h + b) before the label layer

    def problems(self) -> list[str]:
        problems = super().problems()
        if self.pooling not in POOLINGS:
            problems.append(f"Pooling must be one of {', '.join(POOLINGS)}.")
        if self.output not in OUTPUTS:
            problems.append(f"Output must be one of {', '.join(OUTPUTS)}.")
        if self.num_labels < 2:
            problems.append(f"A classifier needs at least two labels (the data has "
                            f"{self.num_labels}).")
        if self.output == "sigmoid" and self.num_labels != 2:
            problems.append(f"One sigmoid unit can tell two labels apart, not "
                            f"{self.num_labels}: choose softmax.")
        if self.pooling == "cls" and not (self.encoder.get("cls_token") or self.cls_in_text):
            problems.append("[CLS] pooling needs a transformer encoder with its '[CLS] token' "
                            "setting on.")
        return problems


@register_config
@dataclass
class TaggerModelConfig(_EncoderHeadConfig):
    """Token -> tag: a linear layer and softmax over the tag set at every position (9.4.1)."""

    arch: ClassVar[str] = "token_tagger"
    title: ClassVar[str] = "Token tagger"
    num_tags: int = 2

    def problems(self) -> list[str]:
        problems = super().problems()
        if self.num_tags < 2:
            problems.append(f"A tagger needs at least two tags (the data has {self.num_tags}).")
        return problems


@register_config
@dataclass
class MaskedLmModelConfig(_EncoderHeadConfig):
    """Masked token prediction (BERT): a transform layer, then E^T (tied) and softmax."""

    arch: ClassVar[str] = "masked_lm"
    title: ClassVar[str] = "Masked language model"
    # f of the transform layer LayerNorm(f(W x + b)): GELU as BERT's, or the activation a BERT
    # folder names (its hidden_act is the head's too). Not a form field.
    head_activation: str = "gelu"
    # a second head on the [CLS] state, IsNext / NotNext for a pair of sentences (BERT's
    # next-sentence prediction); its encoder then has a segment table. Not a form field: the
    # task's `next_sentence` sets it.
    next_sentence: bool = False

    def problems(self) -> list[str]:
        problems = super().problems()
        if self.head_activation not in HEAD_ACTIVATIONS:
            problems.append(f"The masked-LM head's activation must be one of "
                            f"{', '.join(HEAD_ACTIVATIONS)} (got {self.head_activation!r}).")
        if self.next_sentence and int(self.encoder.get("segments", 0)) < 2:
            problems.append("Next-sentence prediction reads a pair of sentences: its encoder "
                            "needs a segment table of at least two rows (A and B).")
        if self.next_sentence and self.encoder.get("arch") != "transformer_encoder":
            problems.append("Next-sentence prediction needs the transformer encoder (its "
                            "segment embeddings tell sentence A from B).")
        return problems
