"""The transformer's blocks written out as the seeds' equations, on the model's own weights.

  Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V,  Q = X W_Q + b_Q, K = X W_K + b_K,
      V = X W_V + b_V   (Vaswani et al. eq. 1; SLP3 9.34)
  M[i, j] = −∞ for j > i (the causal mask: a position sees itself and the past only); an
  encoder block has no causal mask, only M[i, j] = −∞ where key j is padding
  The ablations of a model config drop M (`causal_mask`) or the 1/√d_k (`scale_scores`).
  MultiHead(X) = Concat(head_1, …, head_h) W_O + b_O
  LayerNorm(x) = γ (x − μ) / √(σ² + ε) + β, with the population variance σ² = mean((x − μ)²)
  FFN(x) = f(x W_1 + b_1) W_2 + b_2, f = max(0, x) as the seeds write it (or GELU, which
      GPT-2 and BERT use: the model config's `activation`)
"""

from __future__ import annotations

import math

import torch
from torch.nn import functional as F


def layer_norm(x: torch.Tensor, norm: torch.nn.LayerNorm) -> torch.Tensor:
    mean = x.mean(dim=-1, keepdim=True)
    variance = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # population, not n − 1
    return norm.weight * (x - mean) / torch.sqrt(variance + norm.eps) + norm.bias


def attention(block, x: torch.Tensor, head_clamp: tuple[int, float] | None,
              key_mask: torch.Tensor | None = None):
    """Multi-head self-attention (causal when the block is); `key_mask` (B, T) bool is True on
    real tokens. Returns the output and a record of every intermediate, all (B, nh, T, ·): the
    weights, the scores (−∞ where masked), q, k, v and each head's output."""
    batch, steps, width = x.shape
    heads = block.heads
    size = width // heads  # d_k
    q, k, v = F.linear(x, block.qkv.weight, block.qkv.bias).split(width, dim=2)
    q, k, v = (t.view(batch, steps, heads, size).transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(-2, -1)  # (B, nh, T, T)
    if block.scale_scores:
        scores = scores / math.sqrt(size)
    if block.causal:
        future = torch.ones(steps, steps, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # rows sum to 1 over the keys a query may see
    heads_out = weights @ v  # (B, nh, T, d_k)
    if head_clamp is not None:
        heads_out = heads_out.clone()
        heads_out[:, head_clamp[0]] = head_clamp[1]
    concat = heads_out.transpose(1, 2).reshape(batch, steps, width)  # (B, T, D)
    out = F.linear(concat, block.proj.weight, block.proj.bias)
    return out, {"attn": weights, "scores": scores, "q": q, "k": k, "v": v, "heads": heads_out}


def feed_forward(block, x: torch.Tensor) -> torch.Tensor:
    return feed_forward_parts(block, x)[1]


def feed_forward_parts(block, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(hidden f(x W_1 + b_1), output hidden W_2 + b_2)."""
    hidden = block.activation(F.linear(x, block.ff_in.weight, block.ff_in.bias))
    return hidden, F.linear(hidden, block.ff_out.weight, block.ff_out.bias)


def run(model, x: torch.Tensor, clamp, record: bool, key_mask: torch.Tensor | None = None):
    """x (B, T, D) with positions added -> the last residual stream and per-layer records."""
    records = []
    for index, block in enumerate(model.blocks):
        head_clamp = None
        if clamp is not None and int(clamp["layer"]) == index:
            head_clamp = (int(clamp["head"]), float(clamp["value"]))
        stream_in = x
        attn_in = layer_norm(x, block.norm1) if block.pre_norm else x
        attended, parts = attention(block, attn_in, head_clamp, key_mask)
        if block.pre_norm:  # x + Sublayer(LN(x))
            ln1_in, ln1_out = x, attn_in
            x = x + attended
            ln2_in = x
            ffn_in = ln2_out = layer_norm(x, block.norm2)
            hidden, ffn_out = feed_forward_parts(block, ffn_in)
            mid, x = ln2_in, x + ffn_out
        else:  # LN(x + Sublayer(x)), as Vaswani et al. and SLP3 write it
            ln1_in = x + attended
            mid = ln1_out = x = layer_norm(ln1_in, block.norm1)
            hidden, ffn_out = feed_forward_parts(block, x)
            ln2_in = x + ffn_out
            ln2_out = x = layer_norm(ln2_in, block.norm2)
        if record:  # the residual stream through the block, both LayerNorms and the FFN
            records.append({**parts, "attn_in": attn_in, "attn_out": attended, "resid": x,
                            "resid_in": stream_in, "resid_mid": mid, "ln1_in": ln1_in,
                            "ln1_out": ln1_out, "ln2_in": ln2_in, "ln2_out": ln2_out,
                            "ffn_hidden": hidden, "ffn_out": ffn_out})
    return x, records
