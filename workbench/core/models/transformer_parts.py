"""Pieces of a transformer block that the config's options choose, shared by the fused path
(`transformer.Block`), the transcription (`transformer_steps`) and the KV cache.

- The norm: LayerNorm (Ba et al. 2016; SLP3 9.39-9.42), or RMSNorm (Zhang & Sennrich 2019)
  [NOT IN SEEDS], which Llama uses: RMSNorm(x) = γ x / √(mean(x²) + ε), no mean subtracted
  and no β.
- Grouped-query attention (Ainslie et al. 2023) [NOT IN SEEDS]: `kv_heads` key/value heads,
  each shared by num_heads / kv_heads query heads (head h reads key/value head
  h // (num_heads / kv_heads)); `qkv` then holds W_Q (d columns) and W_K, W_V (kv_heads · d_k
  columns each). kv_heads = num_heads is the usual multi-head attention.
"""

from __future__ import annotations

import torch
from torch import nn


def make_norm(config, width: int) -> nn.Module:
    """The norm the config asks for, with its ε (LayerNorm's 1e-5 unless the config says)."""
    eps = float(getattr(config, "norm_eps", 1e-5))
    if getattr(config, "norm", "layernorm") == "rmsnorm":
        return nn.RMSNorm(width, eps=eps)
    return nn.LayerNorm(width, eps=eps)


def kv_heads_of(config) -> int:
    """Key/value heads: the config's `kv_heads`, or one per query head where it is 0."""
    return int(getattr(config, "kv_heads", 0) or config.num_heads)


def split_heads(block, projected: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """x·[W_Q W_K W_V] (B, T, d + 2·kv_heads·d_k) as q (B, nh, T, d_k) and k, v
    (B, kv_heads, T, d_k)."""
    batch, steps, _ = projected.shape
    size = block.head_size
    kv_width = block.kv_heads * size
    q, k, v = projected.split([block.heads * size, kv_width, kv_width], dim=2)
    q = q.view(batch, steps, block.heads, size).transpose(1, 2)
    k, v = (t.view(batch, steps, block.kv_heads, size).transpose(1, 2) for t in (k, v))
    return q, k, v


def shared_heads(block, t: torch.Tensor) -> torch.Tensor:
    """A key or value tensor (B, kv_heads, T, d_k) repeated to one per query head, in the
    order grouped-query attention shares them (heads 0 … g−1 read key/value head 0, …)."""
    groups = block.heads // block.kv_heads
    return t if groups == 1 else t.repeat_interleave(groups, dim=1)
