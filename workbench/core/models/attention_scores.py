"""Attention of a decoder state over encoder states: the score functions and the masked softmax
(SEEDS 2.4 T1-T3), one module for the fused path and the step-by-step trace alike.

For a decoder state s_i (width d) and encoder states h_1..h_S (width d):

  e_ij = score(s_i, h_j)
      dot       s_i^T h_j                      Luong 2015 "dot"; 002: score(h_4, h̄_s) = h_4^T h̄_s
      scaled    s_i^T h_j / √d_h               000: score(s_i, h_j) = s_i^T h_j / √d_h
      general   s_i^T W_a h_j                  Luong et al. 2015 "general" [NOT IN SEEDS]
      additive  v_a^T tanh(W_a s_i + U_a h_j)  001's fc(s_{i-1}, h_j), "a single fully-connected
                                               layer" (Bahdanau et al. 2014; Luong's "concat")
  α_ij = exp(e_ij) / Σ_k exp(e_ik) over the unpadded k (001: α_ij = softmax_j(e_ij))
  c_i = Σ_j α_ij h_j                            (001: c_i = Σ_j α_ij h_j)

Padded source positions get e_ij = −∞ before the softmax, so their weight is exactly 0 and the
weights of the real positions sum to 1.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from workbench.core.config.attention_scores import COMPUTED as SCORES


class AttentionScore(nn.Module):
    def __init__(self, kind: str, size: int) -> None:
        super().__init__()
        if kind not in SCORES:
            raise ValueError(f"unknown attention score '{kind}'")
        self.kind = kind
        self.size = size
        if kind == "general":
            self.W_a = nn.Linear(size, size, bias=False)
        elif kind == "additive":
            self.W_a = nn.Linear(size, size, bias=False)  # on the decoder state s_i
            self.U_a = nn.Linear(size, size, bias=True)  # on the encoder states h_j
            self.v_a = nn.Linear(size, 1, bias=False)

    def keys(self, states: torch.Tensor) -> torch.Tensor:
        """What the score needs of the encoder states, computed once per source (B, S, d)."""
        if self.kind == "general":
            return self.W_a(states)  # W_a h_j, so s_i^T (W_a h_j)
        if self.kind == "additive":
            return self.U_a(states)  # U_a h_j
        return states

    def forward(self, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """Scores e (B, T, S) of queries s (B, T, d) against `keys(h)` (B, S, d)."""
        if self.kind == "additive":
            hidden = torch.tanh(self.W_a(queries).unsqueeze(2) + keys.unsqueeze(1))  # (B,T,S,d)
            return self.v_a(hidden).squeeze(-1)
        scores = queries @ keys.transpose(1, 2)  # (B, T, S)
        if self.kind == "scaled":
            scores = scores / math.sqrt(self.size)
        return scores


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """α = softmax over the last axis with padded positions (mask False) at exactly 0.
    `mask` is (B, S) for scores (B, ..., S)."""
    shape = (mask.shape[0],) + (1,) * (scores.dim() - 2) + (mask.shape[1],)
    return torch.softmax(scores.masked_fill(~mask.view(shape), float("-inf")), dim=-1)
