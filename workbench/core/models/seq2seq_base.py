"""The protocol of sequence-to-sequence models (DESIGN.md 3b): source in, target logits out.

  forward(source, source_mask, target_in, teacher_forcing) -> logits (B, T, V)   fast path
  begin(source, source_mask) -> (memory, state)       encode once
  step(memory, state, tokens (B,)) -> (logits (B, V), state, attention (B, S) or None)
  reorder(state, index)                               beams: keep the rows `index` names
  trace(source, outputs, source_text, target_text) -> Seq2seqTrace   same weights, every internal

Greedy and beam decoding (core/generation/seq2seq_decoding.py) and scheduled sampling use
`begin`/`step`, so decoding a model and training it read the same equations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch
from torch import nn

from workbench.core.corpus.tokenizers import BOS
from workbench.core.trace.seq2seq import Seq2seqTrace


@dataclass
class Memory:
    """What the decoder reads of the source: encoder states (B, S, D), the source mask (B, S)
    (True on real tokens) and what a score precomputes of the states (or None)."""

    states: torch.Tensor
    mask: torch.Tensor
    keys: torch.Tensor | None = None


class Seq2seqModel(nn.Module, ABC):
    causal = True  # the decoder never reads a target token it is about to predict

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config

    @abstractmethod
    def forward(self, source: torch.Tensor, source_mask: torch.Tensor, target_in: torch.Tensor,
                teacher_forcing: float = 1.0) -> torch.Tensor:
        """Logits (B, T, V) for decoder inputs target_in = <bos> y_1 … y_{T-1}."""

    @abstractmethod
    def begin(self, source: torch.Tensor, source_mask: torch.Tensor) -> tuple[Memory, object]:
        """Encode the source; the decoder's state before its first step."""

    @abstractmethod
    def step(self, memory: Memory, state, tokens: torch.Tensor):
        """One decoder step reading `tokens` (B,): (logits (B, V), new state, α (B, S))."""

    @abstractmethod
    def reorder(self, state, index: torch.Tensor):
        """The state of the rows `index` (B',) names (beam search keeps its best beams)."""

    @abstractmethod
    def trace(self, source: torch.Tensor, outputs: torch.Tensor,
              source_text: list[str] | None = None,
              target_text: list[str] | None = None) -> Seq2seqTrace:
        """Replay one pair under teacher forcing: step i reads outputs[i-1] (<bos> first)."""

    def stepwise(self, source, source_mask, target_in, teacher_forcing: float):
        """Logits one step at a time. Scheduled sampling: each row reads the true previous
        token with probability `teacher_forcing`, else its own greedy prediction (draws from
        torch's generator, which checkpoints keep, so a resumed run draws the same)."""
        memory, state = self.begin(source, source_mask)
        tokens, steps, out = target_in[:, 0], target_in.shape[1], []
        for i in range(steps):
            logits, state, _ = self.step(memory, state, tokens)
            out.append(logits)
            if i + 1 < steps:
                tokens = target_in[:, i + 1]
                if teacher_forcing < 1.0:
                    own = logits.argmax(-1)
                    coin = torch.rand(tokens.shape[0], device=tokens.device)
                    tokens = torch.where(coin >= teacher_forcing, own, tokens)
        return torch.stack(out, dim=1)  # (B, T, V)

    def example_inputs(self, batch_size: int, length: int) -> tuple:
        """Dummy arguments of `forward` (the Architecture panel's summary runs one pass)."""
        device = next(self.parameters()).device
        tokens = torch.zeros(batch_size, length, dtype=torch.long, device=device)
        return tokens, None, tokens

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())


def decoder_inputs(outputs: torch.Tensor) -> torch.Tensor:
    """<bos> y_1 … y_{T-1} for outputs y_1 … y_T (B, T): what teacher forcing feeds."""
    start = torch.full_like(outputs[:, :1], BOS)
    return torch.cat([start, outputs[:, :-1]], dim=1)
