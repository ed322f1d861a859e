"""A GPT-style causal transformer decoder (SEEDS 2.5; SLP3 9.7-9.8; Vaswani et al.).

x_0 = √d·E[tokens] + P (sinusoidal; E[tokens] + P learned; E[tokens] alone with rotary
positions, which turn q and k instead: `rotary`);  each block: multi-head causal
self-attention and a position-wise FFN, each wrapped in a residual connection with LayerNorm,
post-LN as the seeds write it (x = LayerNorm(x + Sublayer(x))) or pre-LN
(x = x + Sublayer(LayerNorm(x))); logits = x V.

Options a Llama folder needs, each off by default so every other model builds as before
[NOT IN SEEDS]: RMSNorm for LayerNorm, rotary positions, a gated FFN (SwiGLU with SiLU),
grouped-query attention and projections without biases (`transformer_parts`, `rotary`).

`forward` uses `scaled_dot_product_attention` (fused kernels); `trace` and `forward_clamped`
run `transformer_steps`, the same weights written out as the seeds' equations.
"""

from __future__ import annotations

import math
from functools import partial

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.models import rotary, transformer_cache, transformer_steps
from workbench.core.models.base import (
    Clamp,
    SequenceModel,
    State,
    as_probe,
    eval_mode,
    to_numpy,
    token_labels,
)
from workbench.core.models.registry import register_builder
from workbench.core.models.transformer_gradients import stream_gradients
from workbench.core.models.transformer_parts import kv_heads_of, make_norm, split_heads
from workbench.core.trace import LayerTrace, Trace

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,  # x·Φ(x), the exact (erf) form
    "gelu_tanh": partial(F.gelu, approximate="tanh"),  # GPT-2's "gelu_new"
    "silu": F.silu,  # x·σ(x) (Swish), Llama's, inside its gated FFN
}


GELU_NAMES = {"gelu": "GELU", "gelu_tanh": "GELU (tanh)", "silu": "SiLU"}


def sinusoidal_encoding(positions: int, width: int) -> torch.Tensor:
    """P[pos, 2i] = sin(pos / 10000^{2i/d}), P[pos, 2i+1] = cos(pos / 10000^{2i/d}).

    pos is the position and i the dimension pair (SEEDS errata 9 and 14: the seeds sometimes
    write the position as t or the cos term with 2j).
    """
    pos = torch.arange(positions, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    pair = torch.arange(0, width, 2, dtype=torch.float64)  # 2i
    angle = pos / torch.pow(10000.0, pair / width)  # (T, ceil(d/2))
    table = torch.zeros(positions, width, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : width // 2])
    return table.float()


class Block(nn.Module):
    """One transformer block. `causal` True: the decoder's masked self-attention; False: an
    encoder block, where every position sees every other (real) one."""

    def __init__(self, config, causal: bool = True) -> None:
        super().__init__()
        d = config.d_model
        self.heads = config.num_heads
        self.kv_heads = kv_heads_of(config)  # fewer than heads: grouped-query attention
        self.head_size = d // self.heads
        self.causal = causal
        self.pre_norm = config.norm_placement == "pre"
        bias = bool(getattr(config, "linear_bias", True))  # Llama has none
        # W_Q, W_K, W_V side by side (K and V narrower with grouped-query attention)
        self.qkv = nn.Linear(d, d + 2 * self.kv_heads * self.head_size, bias=bias)
        self.proj = nn.Linear(d, d, bias=bias)  # W_O
        self.ff_in = nn.Linear(d, config.d_ff, bias=bias)  # FFN(x) = f(x W_1 + b_1) W_2 + b_2
        # gated: FFN(x) = (f(x W_gate) ⊙ x W_1) W_2 (SwiGLU with f = SiLU; Shazeer 2020)
        self.ff_gate = nn.Linear(d, config.d_ff, bias=bias) \
            if getattr(config, "gated_ffn", False) else None
        self.ff_out = nn.Linear(config.d_ff, d, bias=bias)
        self.norm1 = make_norm(config, d)  # LayerNorm or RMSNorm, the config's ε (BERT: 1e-12)
        self.norm2 = make_norm(config, d)
        self.dropout = config.dropout
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.scale_scores = getattr(config, "scale_scores", True)  # off: an ablation
        # f of the FFN: ReLU as the seeds write it, GELU (BERT) or its tanh form (GPT-2)
        self.activation = ACTIVATIONS[getattr(config, "activation", "relu")]

    def attention(self, x: torch.Tensor, key_mask: torch.Tensor | None = None,
                  turn: rotary.Tables | None = None) -> torch.Tensor:
        """Multi-head self-attention; `key_mask` (B, T) bool, True on real tokens, keeps every
        query off the padding keys (an encoder's padded batch); `turn`: the rotary tables of
        the positions, which rotate q and k."""
        batch, steps, width = x.shape
        q, k, v = split_heads(self, self.qkv(x))  # (B, nh, T, hs), k and v (B, kv, T, hs)
        if turn is not None:
            q, k = rotary.rotate(q, turn), rotary.rotate(k, turn)
        allowed = None if key_mask is None else key_mask[:, None, None, :]  # (B, 1, 1, T)
        if allowed is not None and self.causal:
            allowed = allowed & torch.ones(steps, steps, dtype=torch.bool,
                                           device=x.device).tril()
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=allowed, is_causal=self.causal and allowed is None,
            scale=None if self.scale_scores else 1.0,
            dropout_p=self.dropout if self.training else 0.0,
            enable_gqa=self.kv_heads != self.heads,
        )
        return self.proj(out.transpose(1, 2).reshape(batch, steps, width))  # (B, T, D)

    def feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.ff_gate is not None:
            return self.ff_out(self.activation(self.ff_gate(x)) * self.ff_in(x))
        return self.ff_out(self.activation(self.ff_in(x)))

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor | None = None,
                turn: rotary.Tables | None = None) -> torch.Tensor:
        if self.pre_norm:
            x = x + self.drop(self.attention(self.norm1(x), key_mask, turn))
            return x + self.drop(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.drop(self.attention(x, key_mask, turn)))
        return self.norm2(x + self.drop(self.feed_forward(x)))


class TokenPositions:
    """Mixin for the transformer families: x_0 = E[tokens] (scaled) + P, the embedding table,
    learned, sinusoidal or rotary positions and the initialisation both families share."""

    def _make_embeddings(self, config) -> None:
        d = config.d_model
        self.embedding = nn.Embedding(config.vocab_size, d)
        self.learned_positions = config.positional == "learned"
        self.sinusoidal_positions = config.positional == "sinusoidal"
        self.rotary_positions = config.positional == "rope"
        if self.learned_positions:
            self.positions = nn.Embedding(config.context_length, d)
        elif self.sinusoidal_positions:  # not a parameter and not saved: rebuilt from the formula
            self.register_buffer(
                "sinusoid", sinusoidal_encoding(config.context_length, d), persistent=False
            )

    def _init_embeddings(self) -> None:
        """GPT-style N(0, 0.02) weights; then, with a sinusoid, the embedding rescaled."""
        d = self.config.d_model
        self.apply(self._init_weights)
        # The sinusoid has amplitude 1 in every dimension; token embeddings of std 0.02 would
        # drown in it (training then sits at the unigram loss). As in Vaswani et al. 3.4
        # [NOT IN SEEDS]: embeddings start with std d^-1/2 and are multiplied by √d.
        self.embed_scale = math.sqrt(d) if self.sinusoidal_positions else 1.0
        if self.sinusoidal_positions:
            nn.init.normal_(self.embedding.weight, mean=0.0, std=d**-0.5)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def positional(self, steps: int) -> torch.Tensor | None:
        """The (T, D) position term added to the token embeddings (None: no positions)."""
        if steps > self.config.context_length:
            raise ValueError(
                f"The sequence has {steps} tokens; this model's context length is "
                f"{self.config.context_length}."
            )
        if self.learned_positions:
            return self.positions.weight[:steps]
        if self.sinusoidal_positions:
            return self.sinusoid[:steps]
        return None  # rotary positions turn q and k; "none" is an ablation: no positions

    def rotary_tables(self, end: int, start: int = 0) -> rotary.Tables | None:
        """The rotary angles of positions start … end − 1, None without rotary positions."""
        if not self.rotary_positions:
            return None
        config = self.config
        return rotary.tables(start, end, config.d_model // config.num_heads,
                             float(config.rope_theta), self.embedding.weight.device)

    def add_positions(self, x: torch.Tensor) -> torch.Tensor:
        """x + P for the (B, T, D) scaled embeddings x (x itself without positions)."""
        positions = self.positional(x.shape[1])
        return x if positions is None else x + positions

    def positional_extras(self, steps: int) -> dict:
        positions = self.positional(steps)
        if positions is not None:
            return {"positional": to_numpy(positions)}
        if not self.rotary_positions:
            return {}
        # nothing is added to x_0: RoPE turns q and k by these angles i·θ_p (T, d_k/2)
        config = self.config
        return {"rotary_angles": to_numpy(rotary.angles(
            0, steps, config.d_model // config.num_heads, float(config.rope_theta)))}

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """x_0 = √d · E[tokens] + P (sinusoidal), E[tokens] + P (learned) or E[tokens] (no
        positions, an ablation): (B, T, D)."""
        return self.add_positions(self.embedding(tokens) * self.embed_scale)


@register_builder("transformer")
class TransformerLM(TokenPositions, SequenceModel):
    supports_state = False

    def __init__(self, config) -> None:
        super().__init__(config)
        d = config.d_model
        self._make_embeddings(config)
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        causal = getattr(config, "causal_mask", True)  # off: an ablation (reads the future)
        self.blocks = nn.ModuleList(Block(config, causal) for _ in range(config.num_layers))
        # pre-LN leaves the residual stream unnormalised: one more LayerNorm before the head
        self.final_norm = make_norm(config, d) if config.norm_placement == "pre" \
            else nn.Identity()
        self.head = nn.Linear(d, config.vocab_size, bias=getattr(config, "head_bias", True))
        if config.tie_weights:
            self.head.weight = self.embedding.weight
        self._init_embeddings()

    def forward(self, tokens: torch.Tensor, state: State = None) -> tuple[torch.Tensor, State]:
        x = self.drop(self.embed(tokens))
        turn = self.rotary_tables(tokens.shape[1])
        for block in self.blocks:
            x = block(x, None, turn)
        return self.head(self.final_norm(x)), None

    hidden_gradients = stream_gradients  # the probe's curves (transformer_gradients: what, why)

    def forward_cached(self, tokens: torch.Tensor, cache):
        """Generation: logits of `tokens` after the cached ones, and the grown cache."""
        return transformer_cache.forward_cached(self, tokens, cache)

    def forward_clamped(
        self, tokens: torch.Tensor, state: State, clamp: Clamp
    ) -> tuple[torch.Tensor, State]:
        x, _ = transformer_steps.run(self, self.embed(tokens), clamp, record=False)
        return self.head(self.final_norm(x)), None

    def trace(
        self,
        tokens: torch.Tensor,
        state: State = None,
        clamp: Clamp = None,
        token_text: list[str] | None = None,
    ) -> Trace:
        tokens = as_probe(tokens).to(self.embedding.weight.device)
        with eval_mode(self):
            x0 = self.embed(tokens)
            x, records = transformer_steps.run(self, x0, clamp, record=True)
            logits = self.head(self.final_norm(x))
        layers = [
            LayerTrace(name=f"layer {i}", kind="attention",
                       values={k: to_numpy(v[0]) for k, v in rec.items()},
                       convention=attention_convention(self))
            for i, rec in enumerate(records)
        ]
        return Trace(
            tokens=tokens[0].cpu().numpy(),
            token_text=token_labels(tokens, token_text),
            logits=to_numpy(logits[0]),
            layers=layers,
            embeddings=to_numpy(x0[0]),
            extras=self.positional_extras(tokens.shape[1]),
        )


def attention_convention(model) -> str:
    """What a transformer's attention computes, in words (the inspectors read it)."""
    config, block = model.config, model.blocks[0]
    d_k = config.d_model // config.num_heads
    parts = [f"scaled dot-product, 1/√d_k with d_k = {d_k}" if block.scale_scores
             else f"dot-product without the 1/√d_k scaling (ablation; d_k = {d_k})",
             "causal mask" if block.causal else "no causal mask",
             f"{config.norm_placement}-{'RMSNorm' if config.norm == 'rmsnorm' else 'LN'}"]
    if config.positional == "none":
        parts.append("no positions (ablation)")
    if config.positional == "rope":  # the worked computation and the positions view say so
        parts.append(f"rotary positions (RoPE, θ = {config.rope_theta:g}): q and k are "
                     "rotated by their position before q·k")
    if block.kv_heads != block.heads:
        parts.append(f"grouped-query attention: {block.kv_heads} key/value heads shared by "
                     f"{block.heads} query heads")
    activation = getattr(config, "activation", "relu")
    if block.ff_gate is not None:
        parts.append(f"gated feed-forward ({'SwiGLU' if activation == 'silu' else 'GLU'}, "
                     f"{GELU_NAMES.get(activation, 'ReLU')})")
    elif activation != "relu":  # ReLU, as the seeds write it, unsaid
        parts.append(f"{GELU_NAMES[activation]} feed-forward")
    return "; ".join(parts)
