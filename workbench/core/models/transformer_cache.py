"""Generation with a key-value cache for the transformer decoder: each new token computes its
own q, k and v once and attends over the keys and values kept from the tokens before it, so
writing n tokens costs n small steps instead of re-reading the whole window n times.

The same weights as `forward`, in eval mode; a causal query at position P + i sees keys
0 … P + i. `KVCache.select(rows)` follows beam search (each beam extends one parent).
With rotary positions the cached keys are the rotated ones (each turned once, by its own
position); with grouped-query attention the cache holds the kv_heads key/value heads only.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F

from workbench.core.models import rotary
from workbench.core.models.transformer_parts import split_heads


@dataclass
class KVCache:
    """Per layer, the keys and values (B, kv_heads, T, d_k) of the T tokens read so far."""

    keys: list[torch.Tensor]
    values: list[torch.Tensor]

    @property
    def length(self) -> int:
        return int(self.keys[0].shape[2]) if self.keys else 0

    def select(self, rows: torch.Tensor) -> KVCache:
        return KVCache([k.index_select(0, rows) for k in self.keys],
                       [v.index_select(0, rows) for v in self.values])


def _attend(block, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None,
            turn: rotary.Tables | None):
    batch, steps, width = x.shape
    q, k, v = split_heads(block, block.qkv(x))
    if turn is not None:
        q, k = rotary.rotate(q, turn), rotary.rotate(k, turn)
    if past is not None:
        k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
    mask = None
    if block.causal and steps > 1:  # query i (at P + i) sees keys up to P + i
        start = k.shape[2] - steps
        mask = torch.ones(steps, k.shape[2], dtype=torch.bool, device=x.device).tril(start)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                         scale=None if block.scale_scores else 1.0,
                                         enable_gqa=block.kv_heads != block.heads)
    return block.proj(out.transpose(1, 2).reshape(batch, steps, width)), (k, v)


def forward_cached(model, tokens: torch.Tensor, cache: KVCache | None
                   ) -> tuple[torch.Tensor, KVCache]:
    """Logits (B, T, V) of `tokens` read after the cached ones, and the cache with them."""
    start = cache.length if cache is not None else 0
    end = start + tokens.shape[1]
    if end > model.config.context_length:
        raise ValueError(f"{end} tokens exceed the context length "
                         f"{model.config.context_length}")
    x = model.embedding(tokens) * model.embed_scale
    positions = model.positional(end)
    if positions is not None:
        x = x + positions[start:end]
    turn = model.rotary_tables(end, start)
    keys, values = [], []
    for index, block in enumerate(model.blocks):
        past = None if cache is None else (cache.keys[index], cache.values[index])
        if block.pre_norm:
            attended, (k, v) = _attend(block, block.norm1(x), past, turn)
            x = x + attended
            x = x + block.feed_forward(block.norm2(x))
        else:
            attended, (k, v) = _attend(block, x, past, turn)
            x = block.norm1(x + attended)
            x = block.norm2(x + block.feed_forward(x))
        keys.append(k)
        values.append(v)
    return model.head(model.final_norm(x)), KVCache(keys, values)
