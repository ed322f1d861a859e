"""The RNN decoder of the encoder-decoder, with its bridge and attention (see seq2seq_rnn.py
for the equations).

  x_i  = E y_{i-1}, or [E y_{i-1}; h̃_{i-1}] with input feeding
  s_i  = cell(s_{i-1}, x_i)
  e_ij = score(s_i, h_j),  α_ij = softmax_j(e_ij),  c_i = Σ_j α_ij h_j
  h̃_i  = tanh(W_c [c_i; s_i] + b_c)  (no attention: h̃_i = s_i),  logits = W_o h̃_i + b_o

The module is what `recurrent_steps` replays step by step: it has the fused `rnn`, its `kind`,
one direction, and `init_state`.
"""

from __future__ import annotations

import torch
from torch import nn

from workbench.core.models.attention_scores import AttentionScore, masked_softmax
from workbench.core.models.recurrent_steps import FUSED
from workbench.core.models.seq2seq_base import Memory
from workbench.core.recurrent_cells import CELLS


class RnnDecoder(nn.Module):
    def __init__(self, config) -> None:
        super().__init__()
        self.config = config  # an RnnSeq2seqConfig
        self.kind = config.cell  # picks the cell equations in recurrent_steps
        self.directions = 1
        size = config.decoder_size
        self.attends = config.attention != "none"
        self.feeds = config.input_feeding and self.attends
        if config.bridge == "linear":
            self.bridge_h = nn.Linear(size, size)  # W_b
            self.bridge_c = nn.Linear(size, size) if CELLS[config.cell].cell_state else None
        self.embedding = nn.Embedding(config.target_vocab_size, config.embedding_size)
        self.rnn = FUSED[config.cell](
            config.embedding_size + (size if self.feeds else 0), size,
            num_layers=config.num_layers, batch_first=True,
            dropout=config.dropout if config.num_layers > 1 else 0.0)
        if self.attends:
            self.score = AttentionScore(config.attention, size)
            self.combine = nn.Linear(2 * size, size)  # W_c
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.head = nn.Linear(size, config.target_vocab_size)  # W_o

    def init_state(self, batch_size: int, device: torch.device | None = None):
        """Zero decoder state (recurrent_steps asks for one when given None)."""
        shape = (self.config.num_layers, batch_size, self.config.decoder_size)
        zeros = torch.zeros(shape, device=device or self.head.weight.device)
        return (zeros, zeros.clone()) if CELLS[self.kind].cell_state else zeros

    def bridge(self, final, directions: int):
        """Encoder final states (L·dirs, B, H) -> decoder start s_0 (L, B, D): per layer the
        directions side by side, [h^f; h^b], then W_b and tanh (LSTM cell state: no tanh)."""
        def per_layer(t: torch.Tensor) -> torch.Tensor:
            layers, batch = self.config.num_layers, t.shape[1]
            joined = t.view(layers, directions, batch, -1).permute(0, 2, 1, 3)  # (L,B,dirs,H)
            return joined.reshape(layers, batch, -1)

        linear = self.config.bridge == "linear"
        if CELLS[self.kind].cell_state:
            h, c = (per_layer(t) for t in final)
            return (torch.tanh(self.bridge_h(h)), self.bridge_c(c)) if linear else (h, c)
        h = per_layer(final)
        return torch.tanh(self.bridge_h(h)) if linear else h

    def memory(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        return Memory(states, mask, self.score.keys(states) if self.attends else None)

    def inputs(self, tokens: torch.Tensor, feed: torch.Tensor | None) -> torch.Tensor:
        """x_i for tokens (B, T) (input feeding: T = 1 and the previous h̃ beside E y)."""
        x = self.drop(self.embedding(tokens))
        return torch.cat([x, feed.unsqueeze(1)], dim=-1) if self.feeds else x

    def attend(self, s: torch.Tensor, memory: Memory):
        """s (B, T, D) -> (h̃, α, e, c), each with a T axis (h̃ = s without attention)."""
        if not self.attends:
            return s, None, None, None
        scores = self.score(s, memory.keys)  # e (B, T, S)
        weights = masked_softmax(scores, memory.mask)  # α
        context = weights @ memory.states  # c (B, T, D)
        return torch.tanh(self.combine(torch.cat([context, s], dim=-1))), weights, scores, context

    def logits(self, attentional: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(attentional))
