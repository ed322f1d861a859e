"""What `SequenceModel.trace` returns: every internal of a probe, as numpy arrays (torch-free).

Inspectors in the Qt room read these. Shapes use T for probe length, H for hidden units, D for
model width, nh for heads, V for vocabulary size. A sequence-to-sequence model's trace, with
its alignments and decoded steps, is in `trace.seq2seq`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class LayerTrace:
    """One layer's internals along the probe.

    `values` maps a name to an array with time first:
      recurrent: "h" (T, H) always; LSTM adds "i", "f", "g", "o", "c"; GRU adds "r", "z", "n"
        (for a bidirectional layer, each direction is its own LayerTrace, name ending "reverse");
      transformer block: "attn" (nh, T, T) post-softmax weights with the causal mask applied,
        "scores" (nh, T, T) pre-softmax with -inf above the diagonal (none when the mask is
        ablated), "q", "k", "v" (nh, T, d_k) each head's query, key and value vectors,
        "heads" (nh, T, d_k) each head's output Σ_j α_ij v_j, "attn_in" (T, D) the block's
        input to attention (after LayerNorm in a pre-LN block), "attn_out" (T, D) the
        attention output (heads concatenated, times W^O, plus b^O), "resid" (T, D) the
        residual stream after the block.
    """

    name: str
    kind: str  # "rnn" | "lstm" | "gru" | "attention"
    values: dict[str, np.ndarray]
    convention: str = ""  # e.g. the GRU update-gate convention this trace uses


@dataclass(frozen=True)
class Trace:
    tokens: np.ndarray  # (T,) token ids of the probe
    token_text: list[str]  # (T,) the tokens as text, for axis labels
    logits: np.ndarray  # (T, V) next-token logits at each position
    layers: list[LayerTrace]
    embeddings: np.ndarray | None = None  # (T, D) input to the first layer
    extras: dict[str, np.ndarray] = field(default_factory=dict)  # e.g. "positional" (T, D)

    def layer(self, name: str) -> LayerTrace:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(name)
