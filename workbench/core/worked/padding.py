"""Padding and masks of a batch (the course names them, seed 002's Keras `padding`; SLP3 sec.
9.4): sentences of different lengths are right-padded to the longest with <pad> (id 0) by the
function the encoder tasks' batches use (core/data/padding.py), and three masks keep the padding
out: the key mask (True on real tokens), the attention mask of one row (−∞ where the key is
padding, and in a decoder also where it is in the future), and the loss mask (targets at padding
are −100, which the cross-entropy skips)."""

from __future__ import annotations

import numpy as np

from workbench.core.data.padding import pad
from workbench.core.worked.records import Line, WorkedComputation, matrix

IGNORE = -100  # the loss's ignored target (torch's cross_entropy ignore_index)


def padding_example(text: str, row: int = 0, causal: bool = False) -> WorkedComputation:
    sentences = [line.split() for line in text.splitlines() if line.split()]
    if len(sentences) < 2:
        raise ValueError("Type two sentences or more, one a line: padding needs lengths to "
                         "differ.")
    if not 0 <= row < len(sentences):
        raise ValueError(f"Row {row + 1} is not one of the {len(sentences)} sentences (1 to "
                         f"{len(sentences)}).")
    words = sorted({w for s in sentences for w in s})
    ids = {w: i + 4 for i, w in enumerate(words)}  # 0-3: <pad> <unk> <bos> <eos>
    rows = [np.array([ids[w] for w in s]) for s in sentences]
    padded, key_mask = pad(rows)
    width = padded.shape[1]
    allowed = np.repeat(key_mask[row][None, :], width, axis=0)  # query i may read key j?
    if causal:
        allowed &= np.tril(np.ones((width, width), dtype=bool))
    additive = np.where(allowed, 0.0, -np.inf)
    targets = np.where(key_mask, padded, IGNORE)
    shown = "\n".join(" ".join(s + ["<pad>"] * (width - len(s))) for s in sentences)
    lines = (
        Line("the batch, padded", "each row right-padded to the longest with <pad>", shown,
             padded),
        Line("token ids", "B × T, <pad> = 0", matrix(padded, 0), padded),
        Line("key mask", "1 on real tokens, 0 on padding", matrix(key_mask.astype(int), 0),
             key_mask),
        Line(f"attention mask of row {row + 1}" + (" (a decoder: causal too)" if causal
                                                    else ""),
             "M_ij = 0 where query i may read key j, −∞ where key j is padding"
             + (" or in the future (j > i)" if causal else ""), matrix(additive, 0), additive),
        Line("loss targets", "the id to predict, −100 (skipped) at padding",
             matrix(targets, 0), targets),
    )
    real, total = int(key_mask.sum()), key_mask.size
    return WorkedComputation(
        f"Padding {len(sentences)} sentences to {width} tokens", lines,
        "Keras `pad_sequences` and masking as in the course's seed 002; Vaswani et al. 2017, "
        "sec. 3.2.3 (the −∞ mask); PyTorch's cross_entropy ignore_index",
        values={"result": padded, "key_mask": key_mask, "attention_mask": additive,
                "targets": targets},
        note=f"{real} of the {total} positions are real tokens: the loss and the attention "
             f"read only those; the other {total - real} are padding, there only to make the "
             "rows one length.")
