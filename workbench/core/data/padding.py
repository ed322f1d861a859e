"""Padding a batch of sentences of different lengths (torch-free): what the encoder tasks'
batches and the worked example of padding and masks both use."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.core.corpus.tokenizer_base import PAD


def pad(rows: Sequence[np.ndarray], fill: int = PAD) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad int rows to (B, S) with `fill`; the mask (B, S) is True on real entries."""
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), fill, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
        mask[i, :len(row)] = True
    return out, mask
