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

The options a Llama folder needs [NOT IN SEEDS], each written out here too:
  RMSNorm(x) = γ x / √(mean(x²) + ε)   (Zhang & Sennrich 2019)
  rotary positions: q_i and k_j rotated by their positions before the scores (Su et al. 2021,
      `rotary`); the recorded "q" and "k" are the rotated ones, so q · k / √d_k is the score
  grouped-query attention: key/value head h // g serves query head h (Ainslie et al. 2023);
      the recorded "k" and "v" are repeated to one per query head
  gated FFN(x) = (f(x W_gate + b_gate) ⊙ (x W_1 + b_1)) W_2 + b_2 (SwiGLU with f = SiLU;
      Shazeer 2020); without biases where the config has none
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.models import rotary
from workbench.core.models.transformer_parts import shared_heads, split_heads


def layer_norm(x: torch.Tensor, norm: nn.Module) -> torch.Tensor:
    """The block's norm written out: LayerNorm, or RMSNorm where the config asks for it."""
    if isinstance(norm, nn.RMSNorm):
        return norm.weight * x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + norm.eps)
    mean = x.mean(dim=-1, keepdim=True)
    variance = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # population, not n − 1
    return norm.weight * (x - mean) / torch.sqrt(variance + norm.eps) + norm.bias


def attention(block, x: torch.Tensor, head_clamp: tuple[int, float] | None,
              key_mask: torch.Tensor | None = None, turn: rotary.Tables | None = None):
    """Multi-head self-attention (causal when the block is); `key_mask` (B, T) bool is True on
    real tokens; `turn`, the rotary tables, rotates q and k. Returns the output and a record
    of every intermediate, all (B, nh, T, ·): the weights, the scores (−∞ where masked), q, k
    (rotated where positions are rotary), v and each head's output."""
    batch, steps, width = x.shape
    size = block.head_size  # d_k
    q, k, v = split_heads(block, F.linear(x, block.qkv.weight, block.qkv.bias))
    if turn is not None:
        q, k = rotary.rotate(q, turn), rotary.rotate(k, turn)
    k, v = shared_heads(block, k), shared_heads(block, v)  # one per query head
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
    """(hidden f(x W_1 + b_1), output hidden W_2 + b_2); gated, the hidden is
    f(x W_gate + b_gate) ⊙ (x W_1 + b_1)."""
    hidden = F.linear(x, block.ff_in.weight, block.ff_in.bias)
    if block.ff_gate is not None:
        hidden = block.activation(F.linear(x, block.ff_gate.weight, block.ff_gate.bias)) * hidden
    else:
        hidden = block.activation(hidden)
    return hidden, F.linear(hidden, block.ff_out.weight, block.ff_out.bias)


def run(model, x: torch.Tensor, clamp, record: bool, key_mask: torch.Tensor | None = None):
    """x (B, T, D) with positions added -> the last residual stream and per-layer records."""
    records = []
    turn = model.rotary_tables(x.shape[1])
    for index, block in enumerate(model.blocks):
        head_clamp = None
        if clamp is not None and int(clamp["layer"]) == index:
            head_clamp = (int(clamp["head"]), float(clamp["value"]))
        stream_in = x
        attn_in = layer_norm(x, block.norm1) if block.pre_norm else x
        attended, parts = attention(block, attn_in, head_clamp, key_mask, turn)
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
            if turn is not None:  # what rotated q and k (T, d_k), for the worked computation
                parts = {**parts, "rope_cos": turn[0].expand(x.shape[0], -1, -1),
                         "rope_sin": turn[1].expand(x.shape[0], -1, -1)}
            records.append({**parts, "attn_in": attn_in, "attn_out": attended, "resid": x,
                            "resid_in": stream_in, "resid_mid": mid, "ln1_in": ln1_in,
                            "ln1_out": ln1_out, "ln2_in": ln2_in, "ln2_out": ln2_out,
                            "ffn_hidden": hidden, "ffn_out": ffn_out})
    return x, records
