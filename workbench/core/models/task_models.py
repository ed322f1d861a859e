"""Task models: an encoder with a head, behind one shape of interface.

    forward(tokens (B, S), mask (B, S) bool | None) -> logits
        classifier (B, K) · tagger (B, S, n_tags) · masked LM (B, S, V)
    trace(tokens, token_text) -> Trace    the encoder's step-by-step replay + the same head

The head reads the encoder's states in both paths, so trace equals forward whenever the
encoder's does (tested). `Trace.logits` is (1, K) for a classifier (one decision per sentence)
and (T, ·) per position for the others; `Trace.extras` adds what the task's inspectors draw.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.config.task_models import (
    ClassifierModelConfig,
    MaskedLmModelConfig,
    TaggerModelConfig,
)
from workbench.core.models.base import as_probe, eval_mode, state_gradient_norms, to_numpy
from workbench.core.models.encoder import EncoderOutput, EncoderTrace, build_encoder, full_mask
from workbench.core.models.heads import (
    BertPooler,
    MaskedTokenHead,
    NextSentenceHead,
    Pooling,
    cls_state,
    two_class_log_odds,
    two_class_logits,
)
from workbench.core.models.registry import register_builder
from workbench.core.models.transformer import ACTIVATIONS
from workbench.core.trace import Trace


class EncoderTaskModel(nn.Module):
    """Shared parts: the encoder, the probe's trace and the frozen-encoder switch."""

    supports_state = False
    causal = False  # reads the whole sentence: never a next-token language model
    predicts_next_token = False  # the probe's next-token extras do not apply
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

    def decision_logits(self, output: EncoderOutput) -> torch.Tensor:
        """(1, C) logits of the model's one decision the gradient picture follows: the
        sentence's label, or the last position's prediction for per-token heads."""
        return self.head(output.states[:, -1])

    def decision_gradients(self, ids: list[int]) -> dict[str, np.ndarray]:
        """||∂L/∂h_t|| for every layer, direction and position of a recurrent encoder, L the
        cross-entropy of the decision's own answer: how far along the sentence, in each
        direction, one decision reaches (the vanishing-gradient picture of an encoder).
        Transformer encoders have no recurrence: nothing."""
        if not hasattr(self.encoder, "rnn") or not ids:
            return {}
        tokens = as_probe(torch.tensor(ids, dtype=torch.long))
        with eval_mode(self, grad=True):
            run = self.encoder.step_run(self.encoder.embedding(tokens), record=True,
                                        keep_graph=True)
            logits = self.decision_logits(EncoderOutput(run.output, full_mask(tokens),
                                                        run.state))
            loss = F.cross_entropy(logits, logits.argmax(-1).detach())
            return state_gradient_norms(loss, {name: rec["h"]
                                               for name, rec in run.records.items()})

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
        self.pool = Pooling(config.pooling, size, getattr(self.encoder, "directions", 1),
                            config.cls_in_text)
        self.pooler = BertPooler(size) if config.pooler else None
        self.sigmoid = config.output == "sigmoid"  # one unit for two labels
        self.head = nn.Linear(size, 1 if self.sigmoid else config.num_labels)

    def label_logits(self, pooled: torch.Tensor) -> torch.Tensor:
        logits = self.head(pooled)
        return two_class_logits(logits) if self.sigmoid else logits  # (B, K)

    def explained_logits(self, logits: torch.Tensor) -> torch.Tensor:
        """Of the label logits (B, K), the quantity per label an explanation differentiates:
        the logits themselves under softmax, each label's log-odds (−z, z) under a sigmoid."""
        return two_class_log_odds(logits) if self.sigmoid else logits

    def pooled(self, output: EncoderOutput) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The vector the label layer reads (through BERT's pooler when the model has it) and
        the attention-pooling weights (B, S) when pooled so."""
        pooled, weights = self.pool(output)
        return (pooled if self.pooler is None else self.pooler(pooled)), weights

    def classify(self, tokens, mask=None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Label logits (B, K) and the attention-pooling weights (B, S) when pooled so."""
        pooled, weights = self.pooled(self.encoder(tokens, mask))
        return self.label_logits(pooled), weights

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.classify(tokens, mask)[0]

    def decision_logits(self, output: EncoderOutput) -> torch.Tensor:
        return self.label_logits(self.pooled(output)[0])

    def trace(self, tokens, token_text=None, **_) -> Trace:
        with eval_mode(self):
            tokens, encoded = self._encoder_trace(tokens, token_text)
            pooled, weights = self.pooled(encoded.output)
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
        self.head = MaskedTokenHead(self.encoder.output_size, self.encoder.embedding, tie,
                                    ACTIVATIONS[config.head_activation],
                                    float(config.encoder.get("norm_eps", 1e-5)))
        # BERT's second pretraining task, on the [CLS] state of a pair (None: masked-LM only)
        self.next_sentence = NextSentenceHead(self.encoder.output_size) \
            if config.next_sentence else None

    @property
    def reads_segments(self) -> bool:
        """Whether the encoder has a segment table (sentence A and B read differently)."""
        return getattr(self.encoder, "segment_embedding", None) is not None

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None,
                where: torch.Tensor | None = None, segments: torch.Tensor | None = None,
                pairs: bool = False):
        """Logits (B, S, V); with `where` (B, S) bool, only those positions' (N, V): the
        output layer over the whole vocabulary is most of the cost, and the loss needs only
        the chosen tokens. `segments` (B, S): sentence A 0, B 1. `pairs`: also the
        next-sentence logits (B, 2), returned second (one call, so a distributed run's
        gradient averaging sees both heads)."""
        # only the transformer encoder takes segment ids (it ignores them without a table)
        output = self.encoder(tokens, mask, segments=segments) \
            if segments is not None and self.reads_segments else self.encoder(tokens, mask)
        logits = self.head(output.states if where is None else output.states[where])
        if not pairs:
            return logits
        if self.next_sentence is None:
            raise ValueError("This masked-LM model has no next-sentence head.")
        return logits, self.next_sentence(cls_state(output))

    def masked_gradients(self, ids: list[int], mask_id: int) -> dict[str, np.ndarray] | None:
        """A transformer encoder's stream gradients of the loss of its best guess at the
        probe's [MASK] (`transformer_gradients`); None for a recurrent encoder (its decision
        curve stands)."""
        if getattr(self.encoder, "blocks", None) is None:
            return None
        from workbench.core.models.transformer_gradients import masked_stream_gradients

        return masked_stream_gradients(self, ids, int(mask_id))

    def trace(self, tokens, token_text=None, segments=None, **_) -> Trace:
        with eval_mode(self):
            tokens = as_probe(tokens).to(self.encoder.embedding.weight.device)
            encoded = self.encoder.trace(tokens, token_text, segments=segments) \
                if segments is not None and self.reads_segments \
                else self.encoder.trace(tokens, token_text)
            logits = self.head(encoded.output.states[0])  # (S, V)
            extras = {}
            if self.next_sentence is not None:  # P(IsNext), NotNext for the probe as a pair
                pair = torch.softmax(self.next_sentence(cls_state(encoded.output)), dim=-1)
                extras["next_sentence_probs"] = to_numpy(pair[0])
        return self._trace(tokens, encoded, logits, extras)
