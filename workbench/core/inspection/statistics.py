"""Summary statistics of a trace that the inspectors plot (numpy only).

- Gate saturation: for each sigmoid gate and unit, the fraction of probe steps with the gate
  nearly shut (< 0.1) and nearly open (> 0.9). Units near a corner of the scatter act as
  switches; units near the origin work in the gate's linear range.
- Attention heads: per head, the mean entropy of its attention rows (nats), the mean distance
  i - j it looks back, and how much weight it puts on the previous token and on the first one
  (heads that specialise in either show up as outliers).
- PCA path: hidden states along the probe projected on their two main directions.
"""

from __future__ import annotations

import numpy as np

from workbench.core.recurrent_cells import CELLS
from workbench.core.trace import LayerTrace

SIGMOID_GATES = tuple(dict.fromkeys(gate for cell in CELLS.values()
                                    for gate in cell.sigmoid_gates()))
SHUT, OPEN = 0.1, 0.9
HEAD_STATISTICS = ("entropy", "mean distance", "previous token", "first token")


def gate_saturation(layer: LayerTrace) -> dict[str, np.ndarray]:
    """{gate: (H, 2)} with columns (fraction of steps < 0.1, fraction of steps > 0.9)."""
    out = {}
    for gate in SIGMOID_GATES:
        values = layer.values.get(gate)
        if values is None:
            continue
        values = np.asarray(values, dtype=np.float64)  # (T, H)
        out[gate] = np.stack([(values < SHUT).mean(axis=0), (values > OPEN).mean(axis=0)],
                             axis=1)
    return out


def head_statistics(attn: np.ndarray) -> np.ndarray:
    """(nh, 4) statistics of post-softmax causal weights `attn` (nh, T, T), rows = queries.

    Columns follow HEAD_STATISTICS. The previous-token score averages a_{i,i-1} over i >= 1;
    the first-token score averages a_{i,0} over i >= 1 (row 0 can only look at itself).
    """
    a = np.asarray(attn, dtype=np.float64)
    nh, t, _ = a.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(a > 0, a * np.log(a), 0.0)
    entropy = -plogp.sum(axis=2).mean(axis=1)
    i = np.arange(t)[:, None]
    j = np.arange(t)[None, :]
    distance = (a * (i - j)).sum(axis=2).mean(axis=1)
    if t > 1:
        previous = a[:, np.arange(1, t), np.arange(0, t - 1)].mean(axis=1)
        first = a[:, 1:, 0].mean(axis=1)
    else:
        previous = first = np.zeros(nh)
    return np.stack([entropy, distance, previous, first], axis=1)


def pca_path(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """States (T, D) -> (path (T, 2), explained variance ratio (2,)) by SVD of centred data."""
    x = np.asarray(states, dtype=np.float64)
    t = x.shape[0]
    path = np.zeros((t, 2))
    ratio = np.zeros(2)
    if t < 2:
        return path, ratio
    centred = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    k = min(2, len(s))
    path[:, :k] = u[:, :k] * s[:k]
    total = (s ** 2).sum()
    if total > 0:
        ratio[:k] = s[:k] ** 2 / total
    return path, ratio


def token_losses(logits: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(T,) cross-entropy of each probe token given the tokens before it, in nats.

    Entry t is -log p(x_t | x_<t) from the logits at t - 1; entry 0 has no prediction (NaN).
    """
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    out = np.full(len(ids), np.nan)
    if len(ids) > 1:
        out[1:] = -logp[np.arange(len(ids) - 1), np.asarray(ids[1:])]
    return out


def top_k_next(logits: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids (T, k), probabilities (T, k)) of the k most likely next tokens at each position."""
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    k = min(k, p.shape[1])
    # a partial sort: sorting all 50,257 of GPT-2's took 1.1 s of a 2.7 s probe. Every value
    # at least the k-th largest is a candidate (ties included), ordered as a stable sort of
    # the whole row orders them: by probability, then by id
    kth = -np.partition(-p, k - 1, axis=1)[:, k - 1]
    ids = np.empty((p.shape[0], k), dtype=np.int64)
    for row, candidates in enumerate(p >= kth[:, None]):
        found = np.flatnonzero(candidates)
        ids[row] = found[np.lexsort((found, -p[row, found]))][:k]
    return ids, np.take_along_axis(p, ids, axis=1)
