"""What a sequence-to-sequence model's `trace` returns: every internal as numpy (torch-free).

The alignment view, the Attention panel and the console's step view read these. S is the
source length, T the number of output steps (y_1 … y_m <eos> under teacher forcing, or the
decoded tokens), D the width of decoder and encoder states.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workbench.core.trace import LayerTrace


@dataclass(frozen=True)
class Seq2seqTrace:
    source_tokens: np.ndarray  # (S,) ids
    source_text: list[str]  # (S,) labels for the input axis
    target_tokens: np.ndarray  # (T,) the output token of each step
    target_text: list[str]  # (T,) labels for the output axis
    logits: np.ndarray  # (T, V) next-token logits of each step
    # (T, S): α_ij of the RNN decoder's attention, or the transformer's cross-attention of its
    # last layer averaged over heads; (T, 0) for an encoder-decoder without attention
    alignment: np.ndarray
    decoder_states: np.ndarray  # (T, D) s_i (RNN: top layer) or the last residual stream
    encoder_states: np.ndarray  # (S, D) h_j = [h_j^f; h_j^b], or the encoder output
    scores: np.ndarray | None = None  # (T, S) e_ij before the softmax (−∞ on padding)
    contexts: np.ndarray | None = None  # (T, D) c_i = Σ_j α_ij h_j
    attentional: np.ndarray | None = None  # (T, D) h̃_i = tanh(W_c [c_i; s_i])
    # RNN: gates per layer/direction; transformer: "attn"/"scores" (nh, S, S) per block
    encoder_layers: list[LayerTrace] = field(default_factory=list)
    # RNN: decoder gates per layer; transformer: per block "self" (nh, T, T) and "cross"
    # (nh, T, S) attention weights
    decoder_layers: list[LayerTrace] = field(default_factory=list)
    convention: str = ""  # the score's equation, in the seeds' notation
    # per output step, the most likely next tokens as (text, probability), most likely first
    # (filled by whoever knows the target vocabulary: the inspection backend)
    top_tokens: tuple[tuple[tuple[str, float], ...], ...] = ()
    step: int = 0  # the training step of the snapshot traced

    def probabilities(self, step: int) -> np.ndarray:
        """softmax of the logits of output step `step` (V,)."""
        logits = self.logits[step].astype(np.float64)
        e = np.exp(logits - logits.max())
        return e / e.sum()


@dataclass(frozen=True)
class DecodeResult:
    """A decoded input, as the console keeps it: the source tokens, the output tokens with
    their probabilities, alternatives and attention rows, and the output text."""

    source_text: list[str]
    tokens: list  # DecodedToken events, in order
    text: str
    strategy: str = "greedy"
    log_prob: float = 0.0

    @property
    def alignment(self) -> np.ndarray:
        """(T, S) the attention rows of the output tokens ((T, 0) without attention)."""
        rows = [np.asarray(t.attention, dtype=float) for t in self.tokens]
        if not rows or not len(rows[0]):
            return np.zeros((len(rows), 0))
        return np.stack(rows)
