"""Transformer encoder-decoder (SEEDS 2.5 T8, T12-T13; Vaswani et al.).

Encoder (`TransformerEncoder`): X := LayerNorm(X + MultiHead(X W_Q, X W_K, X W_V)),
X := LayerNorm(X + FFN(X)), N times, every query seeing every real key.
Decoder, on Y = [<bos> y_1 … y_m] + P, for r = 1 … N (000:L195-203):
  Y := LayerNorm(Y + MaskedMultiHead(Y W_Q, Y W_K, Y W_V))      causal: position i sees j ≤ i
  Y := LayerNorm(Y + MultiHead(Y W_Q, X W_K, X W_V))            cross-attention: queries from
                                                                 the decoder, keys and values
                                                                 from the encoder output X
  Y := LayerNorm(Y + FFN(Y))
  proba = softmax(Y W_O)
(post-LN as the seeds write it; pre-LN puts the norm inside each branch). The self-attention
and feed-forward sublayers are the decoder-only model's `Block` (same code, same equations);
`DecoderBlock` adds the cross-attention between them. `forward` runs SDPA; `trace` and the
decoding steps run the seeds' equations (`transformer_steps` plus `cross_attention` below) on
the same weights, keeping every head's weights. (Decoding steps run without dropout, so
scheduled sampling, which decodes while training, trains this model without it.)
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.config.models import TransformerConfig, TransformerEncoderConfig
from workbench.core.models import transformer_steps
from workbench.core.models.base import as_probe, eval_mode, to_numpy, token_labels
from workbench.core.models.registry import register_builder
from workbench.core.models.seq2seq_base import Memory, Seq2seqModel, decoder_inputs
from workbench.core.models.transformer import Block, TokenPositions
from workbench.core.models.transformer_encoder import TransformerEncoder
from workbench.core.trace import LayerTrace
from workbench.core.trace.seq2seq import Seq2seqTrace


class DecoderBlock(Block):
    """Masked self-attention, cross-attention over the encoder output, feed-forward."""

    def __init__(self, config) -> None:
        super().__init__(config, causal=True)
        d = config.d_model
        self.cross_q = nn.Linear(d, d)  # W_Q of the cross-attention (on Y)
        self.cross_kv = nn.Linear(d, 2 * d)  # W_K, W_V side by side (on X)
        self.cross_proj = nn.Linear(d, d)  # its W_O
        self.norm_cross = nn.LayerNorm(d)

    def cross(self, y: torch.Tensor, memory: torch.Tensor, key_mask: torch.Tensor):
        batch, steps, width = y.shape
        size = width // self.heads
        q = self.cross_q(y).view(batch, steps, self.heads, size).transpose(1, 2)
        k, v = self.cross_kv(memory).split(width, dim=2)
        k, v = (t.view(batch, -1, self.heads, size).transpose(1, 2) for t in (k, v))
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=key_mask[:, None, None, :],
            dropout_p=self.dropout if self.training else 0.0)  # (B, nh, T, hs)
        return self.cross_proj(out.transpose(1, 2).reshape(batch, steps, width))

    def forward(self, y, memory, key_mask):  # noqa: D102 - see the module docstring
        if self.pre_norm:
            y = y + self.drop(self.attention(self.norm1(y)))
            y = y + self.drop(self.cross(self.norm_cross(y), memory, key_mask))
            return y + self.drop(self.feed_forward(self.norm2(y)))
        y = self.norm1(y + self.drop(self.attention(y)))
        y = self.norm_cross(y + self.drop(self.cross(y, memory, key_mask)))
        return self.norm2(y + self.drop(self.feed_forward(y)))


def cross_attention(block: DecoderBlock, y: torch.Tensor, memory: torch.Tensor,
                    key_mask: torch.Tensor):
    """softmax(Q Kᵀ / √d_k + M) V with Q = Y W_Q, K = X W_K, V = X W_V, M = −∞ on padded
    source keys; returns the output, the weights (B, nh, T, S) and the scores."""
    batch, steps, width = y.shape
    heads, size = block.heads, width // block.heads
    q = F.linear(y, block.cross_q.weight, block.cross_q.bias)
    k, v = F.linear(memory, block.cross_kv.weight, block.cross_kv.bias).split(width, dim=2)
    q = q.view(batch, steps, heads, size).transpose(1, 2)
    k, v = (t.view(batch, -1, heads, size).transpose(1, 2) for t in (k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(size)  # (B, nh, T, S)
    scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ v).transpose(1, 2).reshape(batch, steps, width)
    return F.linear(out, block.cross_proj.weight, block.cross_proj.bias), weights, scores


class TargetDecoder(TokenPositions, nn.Module):
    """Target embeddings with positions, the decoder blocks and the output layer."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config  # a TransformerConfig of the decoder side
        self._make_embeddings(config)
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.blocks = nn.ModuleList(DecoderBlock(config) for _ in range(config.num_layers))
        pre = config.norm_placement == "pre"
        self.final_norm = nn.LayerNorm(config.d_model) if pre else nn.Identity()
        self.head = nn.Linear(config.d_model, config.vocab_size)
        self._init_embeddings()

    def forward(self, target_in, memory: Memory) -> torch.Tensor:
        y = self.drop(self.embed(target_in))
        for block in self.blocks:
            y = block(y, memory.states, memory.mask)
        return self.head(self.final_norm(y))

    def steps(self, target_in, memory: Memory, record: bool):
        """The seeds' equations: (logits, last residual stream, per-block records)."""
        y, records = self.embed(target_in), []
        norm = transformer_steps.layer_norm
        for block in self.blocks:
            pre = block.pre_norm  # pre-LN: norm inside the branch; post-LN: after the sum
            attended, self_record = transformer_steps.attention(
                block, norm(y, block.norm1) if pre else y, None)
            y = y + attended if pre else norm(y + attended, block.norm1)
            crossed, cross_w, cross_s = cross_attention(
                block, norm(y, block.norm_cross) if pre else y, memory.states, memory.mask)
            y = y + crossed if pre else norm(y + crossed, block.norm_cross)
            fed = transformer_steps.feed_forward(block, norm(y, block.norm2) if pre else y)
            y = y + fed if pre else norm(y + fed, block.norm2)
            if record:
                records.append({"self": self_record["attn"], "cross": cross_w,
                                "cross_scores": cross_s, "resid": y})
        return self.head(self.final_norm(y)), y, records


@register_builder("transformer_seq2seq")
class TransformerSeq2seq(Seq2seqModel):
    def __init__(self, config) -> None:
        super().__init__(config)
        shared = dict(d_model=config.d_model, num_heads=config.num_heads, d_ff=config.d_ff,
                      context_length=config.max_length, dropout=config.dropout,
                      positional=config.positional, norm_placement=config.norm_placement)
        self.encoder = TransformerEncoder(TransformerEncoderConfig(
            vocab_size=config.source_vocab_size, num_layers=config.encoder_layers, **shared))
        self.decoder = TargetDecoder(TransformerConfig(
            vocab_size=config.target_vocab_size, num_layers=config.decoder_layers, **shared))

    def begin(self, source, source_mask):
        encoded = self.encoder(source, source_mask)  # a mask of None: no padding
        empty = torch.zeros(source.shape[0], 0, dtype=torch.long, device=source.device)
        return Memory(encoded.states, encoded.mask), empty

    def forward(self, source, source_mask, target_in, teacher_forcing: float = 1.0):
        if teacher_forcing < 1.0:
            return self.stepwise(source, source_mask, target_in, teacher_forcing)
        memory, _ = self.begin(source, source_mask)
        return self.decoder(target_in, memory)

    def step(self, memory: Memory, state, tokens: torch.Tensor):
        """The state is the prefix read so far; the whole prefix is read again (a causal
        decoder's earlier positions do not change, so the last position is the new step)."""
        prefix = torch.cat([state, tokens[:, None]], dim=1)
        logits, _, records = self.decoder.steps(prefix, memory, record=True)
        weights = records[-1]["cross"][:, :, -1].mean(dim=1)  # (B, S), averaged over heads
        return logits[:, -1], prefix, weights

    def reorder(self, state, index):
        return state.index_select(0, index)

    def trace(self, source, outputs, source_text=None, target_text=None) -> Seq2seqTrace:
        source = as_probe(source).to(self.decoder.head.weight.device)
        outputs = as_probe(outputs).to(source.device)
        with eval_mode(self):
            encoded = self.encoder.trace(source, source_text)
            mask = torch.ones_like(source, dtype=torch.bool)
            memory = Memory(encoded.output.states, mask)
            logits, y, records = self.decoder.steps(decoder_inputs(outputs), memory, True)
        size = self.config.d_model // self.config.num_heads
        decoder_layers = [
            LayerTrace(name=f"decoder layer {i}", kind="attention",
                       values={k: to_numpy(v[0]) for k, v in rec.items()},
                       convention=f"self: causal; cross: queries from the decoder, keys and "
                                  f"values from the encoder; 1/√d_k with d_k = {size}")
            for i, rec in enumerate(records)]
        encoder_layers = [LayerTrace(f"encoder {layer.name}", layer.kind, layer.values,
                                     layer.convention) for layer in encoded.layers]
        return Seq2seqTrace(
            source_tokens=source[0].cpu().numpy(),
            source_text=token_labels(source, source_text),
            target_tokens=outputs[0].cpu().numpy(),
            target_text=token_labels(outputs, target_text),
            logits=to_numpy(logits[0]),
            alignment=to_numpy(records[-1]["cross"][0].mean(dim=0)),
            decoder_states=to_numpy(y[0]), encoder_states=to_numpy(encoded.output.states[0]),
            scores=None, encoder_layers=encoder_layers, decoder_layers=decoder_layers,
            convention="cross-attention (000): Y := LayerNorm(Y + MultiHead(Y W_Q, X W_K, "
                       "X W_V)); the alignment is the last layer's, averaged over heads")
