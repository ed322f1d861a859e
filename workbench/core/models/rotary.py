"""Rotary position embeddings, RoPE (Su et al. 2021, "RoFormer") [NOT IN SEEDS].

Nothing is added to the token embeddings: each head's query and key are rotated, pair of
dimensions by pair, by an angle proportional to their position, so q̃_i · k̃_j depends on the
two vectors and on i − j only:

  θ_p = base^(−2p/d_k) for the pair p = 0 … d_k/2 − 1 (base: the config's `rope_theta`)
  q̃_i[p]         = q_i[p] cos(i θ_p) − q_i[p + d_k/2] sin(i θ_p)
  q̃_i[p + d_k/2] = q_i[p + d_k/2] cos(i θ_p) + q_i[p] sin(i θ_p)      (k the same way)

The pairs are (p, p + d_k/2), the two halves of the head, as Hugging Face's Llama stores its
weights (Meta's own checkpoints pair neighbours (2p, 2p + 1) and are permuted when converted).
The angles are computed in float32 the way `transformers` computes them, so a Llama folder's
numbers are its own, not a float64 refinement of them.
"""

from __future__ import annotations

import torch

Tables = tuple[torch.Tensor, torch.Tensor]


def angles(start: int, end: int, head_size: int, base: float,
           device: torch.device | None = None) -> torch.Tensor:
    """The angles i·θ_p (end − start, d_k/2) of positions start … end − 1, pair by pair."""
    pairs = torch.arange(0, head_size, 2, dtype=torch.int64, device=device).float()
    inverse = 1.0 / (base ** (pairs / head_size))  # θ_p, (d_k/2,)
    positions = torch.arange(start, end, dtype=torch.int64, device=device).float()
    return positions[:, None] * inverse[None, :]


def tables(start: int, end: int, head_size: int, base: float,
           device: torch.device | None = None) -> Tables:
    """(cos, sin), each (end − start, d_k): the angles of positions start … end − 1, repeated
    over the two halves of a head. Computed when asked (a few thousand values), not kept as a
    buffer: a model built on the meta device then needs nothing rebuilt."""
    turn = angles(start, end, head_size, base, device)
    doubled = torch.cat([turn, turn], dim=-1)  # (T, d_k)
    return doubled.cos(), doubled.sin()


def rotate(x: torch.Tensor, rotary: Tables) -> torch.Tensor:
    """x (…, T, d_k) with each position's pairs rotated by its angles."""
    cos, sin = rotary
    half = x.shape[-1] // 2
    turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)  # (−second half, first half)
    return x * cos.to(x.dtype) + turned * sin.to(x.dtype)
