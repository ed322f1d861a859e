"""The attention matrices the Attention inspector draws, read from a trace: a language model's
layers, or a sequence-to-sequence model's encoder self-, decoder self- and cross-attention (an
RNN encoder-decoder's α as its one head), each with its masked cells set to NaN (hatched)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from workbench.core.trace import Trace

if TYPE_CHECKING:  # (core.trace.seq2seq is outside the Qt room's allow-list)
    from workbench.core.trace.seq2seq import Seq2seqTrace


def masked(matrix: np.ndarray, scores: np.ndarray | None = None) -> np.ndarray:
    """The matrix with the masked cells set to NaN (drawn hatched): those whose score is −∞,
    or every future cell (j > i) when no scores are given. A model whose causal mask is
    ablated has none."""
    out = np.array(matrix, dtype=np.float32)
    if scores is None:
        out[np.triu_indices(out.shape[0], 1)] = np.nan
    else:
        out[~np.isfinite(np.asarray(scores))] = np.nan
    out[~np.isfinite(out)] = np.nan
    return out


@dataclass(frozen=True)
class AttentionView:
    """One layer's attention: weights (nh, queries, keys), scores or None, axis labels."""

    name: str
    attn: np.ndarray
    scores: np.ndarray | None
    rows: list[str]
    cols: list[str]
    causal: bool
    values: dict = field(default_factory=dict)  # a language model's layer values (worked cells)
    convention: str = ""


def attention_views(trace: Trace | Seq2seqTrace) -> list[AttentionView]:
    """Every attention matrix of a trace: a language model's layers, or a sequence-to-sequence
    model's encoder self-, decoder self- and cross-attention."""
    if isinstance(trace, Trace):  # a language model's
        return [AttentionView(layer.name, layer.values["attn"], layer.values.get("scores"),
                              trace.token_text, trace.token_text, True, layer.values,
                              layer.convention)
                for layer in trace.layers if "attn" in layer.values]
    source, outputs = trace.source_text, trace.target_text
    inputs = ["<bos>", *outputs[:-1]]  # what the decoder reads at each step
    views = [AttentionView(f"{layer.name} · self", layer.values["attn"],
                           layer.values.get("scores"), source, source, False)
             for layer in trace.encoder_layers if "attn" in layer.values]
    for layer in trace.decoder_layers:
        if "self" in layer.values:
            views.append(AttentionView(f"{layer.name} · masked self", layer.values["self"],
                                       None, inputs, inputs, True))
        if "cross" in layer.values:
            views.append(AttentionView(f"{layer.name} · cross", layer.values["cross"],
                                       layer.values.get("cross_scores"), outputs, source, False))
    if not views and np.asarray(trace.alignment).shape[1]:  # an RNN decoder's α: one head
        views.append(AttentionView("decoder attention α (RNN)", trace.alignment[None],
                                   None if trace.scores is None else trace.scores[None],
                                   outputs, source, False))
    return views


def finite(matrix: np.ndarray) -> np.ndarray:
    """A matrix without a causal mask, −∞ scores (padding) drawn as masked cells."""
    out = np.array(matrix, dtype=np.float32)
    out[~np.isfinite(out)] = np.nan
    return out
