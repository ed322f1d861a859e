"""Task models: an encoder with a head, behind one shape of interface.

    forward(tokens (B, S), mask (B, S) bool | None) -> logits
        classifier (B, K) · tagger (B, S, n_tags) · masked LM (B, S, V)
    trace(tokens, token_text) -> Trace    the encoder's step-by-step replay + the same head

The head reads the encoder's states in both paths, so trace equals forward whenever the
encoder's does (tested). `Trace.logits` is (1, K) for a classifier (one decision per sentence)
and (T, ·) per position for the others; `Trace.extras` adds what the task's inspectors draw.
"""

from __future__ import annotations

import torch
from torch import nn

from workbench.core.config.task_models import (
    ClassifierModelConfig,
    MaskedLmModelConfig,
    TaggerModelConfig,
)
from workbench.core.models.base import as_probe, eval_mode, to_numpy
from workbench.core.models.encoder import EncoderTrace, build_encoder
from workbench.core.models.heads import MaskedTokenHead, Pooling, two_class_logits
from workbench.core.models.registry import register_builder
from workbench.core.trace import Trace


class EncoderTaskModel(nn.Module):
    """Shared parts: the encoder, the probe's trace and the frozen-encoder switch."""

    supports_state = False
    causal = False  # reads the whole sentence: never a next-token language model
    summary_container = ("encoder",)  # the layer table opens the encoder into its layers

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        self.encoder = build_encoder(config.encoder_config())

    def init_state(self, batch_size: int, device=None):
        return None

    def freeze_encoder(self, frozen: bool = True) -> None:
        """Feature-based fine-tuning (seed 003): the pretrained encoder stays as it is."""
        for parameter in self.encoder.parameters():
            parameter.requires_grad_(not frozen)

    def _encoder_trace(self, tokens: torch.Tensor, token_text) -> tuple[torch.Tensor,
                                                                       EncoderTrace]:
        tokens = as_probe(tokens).to(self.encoder.embedding.weight.device)
        return tokens, self.encoder.trace(tokens, token_text)

    def _trace(self, tokens: torch.Tensor, encoded: EncoderTrace, logits: torch.Tensor,
               extras: dict) -> Trace:
        return Trace(tokens=tokens[0].cpu().numpy(), token_text=list(encoded.token_text),
                     logits=to_numpy(logits), layers=encoded.layers,
                     embeddings=encoded.embeddings, extras={**encoded.extras, **extras})


@register_builder(ClassifierModelConfig.arch)
class SequenceClassifier(EncoderTaskModel):
    def __init__(self, config: ClassifierModelConfig) -> None:
        super().__init__(config)
        size = self.encoder.output_size
        self.pool = Pooling(config.pooling, size, getattr(self.encoder, "directions", 1))
        self.sigmoid = config.output == "sigmoid"  # one unit for two labels
        self.head = nn.Linear(size, 1 if self.sigmoid else config.num_labels)

    def label_logits(self, pooled: torch.Tensor) -> torch.Tensor:
        logits = self.head(pooled)
        return two_class_logits(logits) if self.sigmoid else logits  # (B, K)

    def classify(self, tokens, mask=None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Label logits (B, K) and the attention-pooling weights (B, S) when pooled so."""
        pooled, weights = self.pool(self.encoder(tokens, mask))
        return self.label_logits(pooled), weights

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.classify(tokens, mask)[0]

    def trace(self, tokens, token_text=None, **_) -> Trace:
        with eval_mode(self):
            tokens, encoded = self._encoder_trace(tokens, token_text)
            pooled, weights = self.pool(encoded.output)
            logits = self.label_logits(pooled)  # (1, K)
        extras = {"label_probs": to_numpy(torch.softmax(logits[0], dim=-1)),
                  "pooled": to_numpy(pooled[0])}
        if weights is not None:
            extras["pool_weights"] = to_numpy(weights[0])
        return self._trace(tokens, encoded, logits, extras)


@register_builder(TaggerModelConfig.arch)
class TokenTagger(EncoderTaskModel):
    def __init__(self, config: TaggerModelConfig) -> None:
        super().__init__(config)
        self.head = nn.Linear(self.encoder.output_size, config.num_tags)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.head(self.encoder(tokens, mask).states)  # (B, S, n_tags)

    def trace(self, tokens, token_text=None, **_) -> Trace:
        with eval_mode(self):
            tokens, encoded = self._encoder_trace(tokens, token_text)
            logits = self.head(encoded.output.states[0])  # (S, n_tags)
        return self._trace(tokens, encoded, logits,
                           {"tag_probs": to_numpy(torch.softmax(logits, dim=-1))})


@register_builder(MaskedLmModelConfig.arch)
class MaskedLanguageModel(EncoderTaskModel):
    def __init__(self, config: MaskedLmModelConfig) -> None:
        super().__init__(config)
        tie = bool(config.encoder.get("tie_weights", False))
        self.head = MaskedTokenHead(self.encoder.output_size, self.encoder.embedding, tie)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None,
                where: torch.Tensor | None = None) -> torch.Tensor:
        """Logits (B, S, V); with `where` (B, S) bool, only those positions' (N, V): the
        output layer over the whole vocabulary is most of the cost, and the loss needs only
        the chosen tokens."""
        states = self.encoder(tokens, mask).states
        return self.head(states if where is None else states[where])

    def trace(self, tokens, token_text=None, **_) -> Trace:
        with eval_mode(self):
            tokens, encoded = self._encoder_trace(tokens, token_text)
            logits = self.head(encoded.output.states[0])  # (S, V)
        return self._trace(tokens, encoded, logits, {})
