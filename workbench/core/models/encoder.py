"""Encoders: token ids in, one state per position out (DESIGN.md section 3b).

An encoder reads the whole sequence, so (unlike a language model) a position may see the tokens
after it: a bidirectional RNN (SLP3 9.15-9.17, h_t = [h_t^f; h_t^b]) or transformer blocks
without the causal mask. Task models (a classifier, a tagger, a masked-LM head, a sequence-to-
sequence decoder) put a head on top. Both families keep the two paths of section 3:

- `forward(tokens, mask)` is the fast path (fused `nn.LSTM`/`nn.GRU`/`nn.RNN` over packed
  sequences, SDPA with a key-padding mask) and returns an `EncoderOutput`;
- `trace(tokens, token_text)` replays one unpadded sequence step by step through the seeds'
  equations on the same weights and returns an `EncoderTrace`: the same states, plus every
  internal (gates of both directions, attention weights per layer and head) as numpy.

Masks are (B, S) bool, True on real tokens, and padding sits at the end of a row (right
padding). Padding never changes a real position's state: the RNN runs packed sequences, and
attention gives padded keys exactly zero weight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from workbench.core.jobs import UserFacingError
from workbench.core.models.base import State
from workbench.core.trace import LayerTrace


@dataclass
class EncoderOutput:
    """What an encoder's forward (or trace) returns, as tensors.

    states: (B, S, H·dirs) the top layer at each position; exactly 0 on padding.
    mask:   (B, S) bool, True on real tokens (all True when no mask was given).
    final:  the recurrent state after the last real token, per layer and direction, as the
            fused module returns it: (L·dirs, B, H), or (h, c) for an LSTM. Direction d of
            layer l is index l·dirs + d; the backward direction's final state is the one after
            reading the first token. None for a transformer.
    cls:    (B, D) the state at a prepended [CLS] position, or None when there is none.
    """

    states: torch.Tensor
    mask: torch.Tensor
    final: State = None
    cls: torch.Tensor | None = None


@dataclass
class EncoderTrace:
    """The step-by-step replay of one sequence: the same output as `forward`, with internals.

    layers: recurrent: one LayerTrace per layer and direction ("layer 0", "layer 0 reverse");
            transformer: one per block with "attn"/"scores" (nh, T, T) and "resid" (T, D)
            (T counts the [CLS] position first when the encoder has one).
    token_text: the labels of the T positions the layers show (with "[CLS]" when present).
    """

    output: EncoderOutput
    layers: list[LayerTrace]
    embeddings: np.ndarray  # (T, E) the input to the first layer
    token_text: list[str]
    extras: dict[str, np.ndarray] = field(default_factory=dict)


def full_mask(tokens: torch.Tensor) -> torch.Tensor:
    return torch.ones(tokens.shape, dtype=torch.bool, device=tokens.device)


def checked_lengths(mask: torch.Tensor) -> torch.Tensor:
    """Row lengths of a right-padded mask; refuse masks an encoder cannot honour."""
    lengths = mask.sum(dim=1)
    if bool((lengths == 0).any()):
        raise ValueError("A sequence in the batch has no real tokens (its mask is all False).")
    positions = torch.arange(mask.shape[1], device=mask.device)
    if not bool(torch.equal(mask, positions[None, :] < lengths[:, None])):
        raise ValueError("Padding must come after the real tokens of each row (right padding).")
    return lengths


_ENCODERS: dict[str, Callable[[Any], nn.Module]] = {}


def register_encoder(arch: str) -> Callable:
    """Decorator for the encoder class that reads configs of architecture `arch`."""

    def decorate(builder: Callable[[Any], nn.Module]) -> Callable[[Any], nn.Module]:
        _ENCODERS[arch] = builder
        return builder

    return decorate


def build_encoder(config: Any) -> nn.Module:
    """The encoder a model config describes (rnn, lstm, gru, transformer_encoder)."""
    problems = list(config.problems())
    if config.vocab_size < 1:
        problems.append("The vocabulary size is not set: tokenize a corpus first.")
    if problems:
        raise UserFacingError("Invalid model settings: " + " ".join(problems))
    if config.arch not in _ENCODERS:
        raise UserFacingError(f"'{config.title}' cannot be used as an encoder. Choose one of: "
                              f"{', '.join(_ENCODERS)}.")
    return _ENCODERS[config.arch](config)


def encoder_architectures() -> list[str]:
    return list(_ENCODERS)
