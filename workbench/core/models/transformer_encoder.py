"""A transformer encoder: the decoder's blocks without the causal mask (SEEDS T12; BERT).

x_0 = E[tokens] (scaled) + P, with an optional learned [CLS] vector prepended at position 0,
and, as options BERT needs, + S[segments] (a learned segment table: sentence A of a pair reads
row 0, sentence B row 1; Devlin et al. 2019, sec. 3.1) and x_0 := LayerNorm(x_0);
for r = 1 … N: X := LayerNorm(X + MultiHead(X W_Q, X W_K, X W_V)) and
X := LayerNorm(X + FFN(X)) (post-LN, the seeds' form; pre-LN optional), every query attending to
every real key. Padded keys get exactly zero weight (a key-padding mask), so padding changes no
real position. The blocks, the position table and the step-by-step transcription are the
decoder-only model's (`transformer.Block`, `TokenPositions`, `transformer_steps`).
"""

from __future__ import annotations

import torch
from torch import nn

from workbench.core.models import transformer_steps
from workbench.core.models.base import Clamp, as_probe, eval_mode, to_numpy, token_labels
from workbench.core.models.encoder import EncoderOutput, EncoderTrace, full_mask, register_encoder
from workbench.core.models.transformer import Block, TokenPositions, attention_convention
from workbench.core.models.transformer_parts import make_norm
from workbench.core.trace import LayerTrace

CLS_TEXT = "[CLS]"


@register_encoder("transformer_encoder")
class TransformerEncoder(TokenPositions, nn.Module):
    """Token ids (B, S) -> states (B, S, D) and, with `cls_token`, the [CLS] state (B, D)."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.output_size = d
        self.has_cls = bool(getattr(config, "cls_token", False))
        self._make_embeddings(config)
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        # an encoder reads both sides; its config's causal mask (off by default) can turn it on
        causal = bool(getattr(config, "causal_mask", False))
        self.blocks = nn.ModuleList(Block(config, causal=causal) for _ in range(config.num_layers))
        eps = getattr(config, "norm_eps", 1e-5)
        self.final_norm = make_norm(config, d) if config.norm_placement == "pre" \
            else nn.Identity()
        # BERT normalises x_0 before the first block; the seeds' encoder does not (default off,
        # so the models and checkpoints made before the option build as they did)
        self.embed_norm = nn.LayerNorm(d, eps=eps) if getattr(config, "embedding_norm", False) \
            else None
        self._init_embeddings()
        if self.has_cls:  # starts like a token's embedding and is scaled as one
            std = 0.02 if self.learned_positions else d**-0.5
            self.cls = nn.Parameter(torch.randn(1, 1, d) * std)
        # made last, and only when asked for: a model without it draws the same initial
        # weights from the same seed as before the option existed
        segments = int(getattr(config, "segments", 0))
        self.segment_embedding = nn.Embedding(segments, d) if segments else None
        if self.segment_embedding is not None:
            nn.init.normal_(self.segment_embedding.weight, mean=0.0, std=0.02)

    def segment_term(self, segments: torch.Tensor | None, shape: torch.Size
                     ) -> torch.Tensor | None:
        """S[segment ids] (B, T, D) for the T positions of x_0 ([CLS] first, of segment 0),
        None for an encoder without a segment table; `segments` None reads all as 0."""
        if self.segment_embedding is None:
            return None
        batch, steps = shape[0], shape[1]
        table = self.segment_embedding.weight
        ids = torch.zeros(batch, steps, dtype=torch.long, device=table.device)
        if segments is not None:
            ids[:, steps - segments.shape[1]:] = segments  # after the prepended [CLS]
        return self.segment_embedding(ids)

    def embed_with_cls(self, tokens: torch.Tensor, mask: torch.Tensor | None,
                       norm=None, segments: torch.Tensor | None = None
                       ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """x_0 (B, T, D) with T = S (+1 for [CLS] at position 0) and the matching key mask;
        with the embedding LayerNorm, x_0 = LayerNorm(E[tokens] + P (+ S[segments])),
        computed by `norm` (the fused module unless the transcription passes its own)."""
        x = self.embedding(tokens) * self.embed_scale  # (B, S, D)
        if self.has_cls:
            cls = self.cls * self.embed_scale
            x = torch.cat([cls.expand(tokens.shape[0], -1, -1), x], dim=1)
            if mask is not None:
                mask = torch.cat([mask.new_ones(mask.shape[0], 1), mask], dim=1)
        x = self.add_positions(x)
        segment = self.segment_term(segments, x.shape)
        if segment is not None:
            x = x + segment
        if self.embed_norm is not None:
            x = norm(x, self.embed_norm) if norm is not None else self.embed_norm(x)
        return x, mask

    def _output(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        x = self.final_norm(x)
        cls, states = (x[:, 0], x[:, 1:]) if self.has_cls else (None, x)
        states = states * mask.unsqueeze(-1).to(states.dtype)  # padding reads as exactly 0
        return EncoderOutput(states, mask, None, cls)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None,
                state=None, segments: torch.Tensor | None = None) -> EncoderOutput:
        """`segments` (B, S): each token's segment id (0 for sentence A, 1 for B), read only
        by an encoder with a segment table; None: all 0."""
        key_mask = None if mask is None or bool(mask.all()) else mask
        x, key_mask = self.embed_with_cls(tokens, key_mask, segments=segments)
        x = self.drop(x)
        turn = self.rotary_tables(x.shape[1])  # rotary positions: [CLS] at position 0
        for block in self.blocks:
            x = block(x, key_mask, turn)
        return self._output(x, full_mask(tokens) if mask is None else mask)

    def step_run(self, tokens: torch.Tensor, mask: torch.Tensor | None = None,
                 clamp: Clamp = None, record: bool = True,
                 segments: torch.Tensor | None = None):
        """The seeds' equations: (x_0, last residual stream, per-block records)."""
        x0, key_mask = self.embed_with_cls(tokens, mask, transformer_steps.layer_norm,
                                           segments)
        x, records = transformer_steps.run(self, x0, clamp, record=record, key_mask=key_mask)
        return x0, x, records

    def trace(self, tokens: torch.Tensor, token_text: list[str] | None = None,
              state=None, clamp: Clamp = None,
              segments: torch.Tensor | None = None) -> EncoderTrace:
        tokens = as_probe(tokens).to(self.embedding.weight.device)
        if segments is not None:
            segments = as_probe(segments).to(tokens.device)
        with eval_mode(self):
            x0, x, records = self.step_run(tokens, None, clamp, segments=segments)
            output = self._output(x, full_mask(tokens))
            segment = self.segment_term(segments, x0.shape)
        layers = [
            LayerTrace(name=f"layer {i}", kind="attention",
                       values={k: to_numpy(v[0]) for k, v in rec.items()},
                       convention="encoder: " + attention_convention(self))
            for i, rec in enumerate(records)
        ]
        text = token_labels(tokens, token_text)
        if self.has_cls:
            text = [CLS_TEXT, *text]
        extras = self.positional_extras(x0.shape[1])
        if segment is not None:  # the third term of x_0, which the input composition shows
            ids = torch.zeros(x0.shape[1], dtype=torch.long)
            if segments is not None:
                ids[x0.shape[1] - segments.shape[1]:] = segments[0].cpu()
            extras.update(segment=to_numpy(segment[0]), segment_ids=ids.numpy())
        return EncoderTrace(output, layers, to_numpy(x0[0]), text, extras)
