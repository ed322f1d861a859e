"""What the attention panel's Positions tab draws from a trace's extras: the table added to the
embeddings (sinusoidal or learned P), or, for rotary positions (RoPE, Su et al. 2021), the
angles i·θ_p that turn each head's q and k, since nothing is added to the embeddings.

Each comes with the cosine similarity between positions: of the rows of P, or of the
rotations (cos i·θ_p, sin i·θ_p), whose similarity is the mean of cos((i − j)·θ_p) over the
pairs and so depends on i − j alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROTATED = "rotary positions"  # the words of a rotary model's attention convention


@dataclass(frozen=True)
class PositionTables:
    table: np.ndarray  # (T, columns) what the heatmap shows
    column_names: list[str]
    title: str
    similarity: np.ndarray  # (T, T) cosine similarity between positions
    similarity_title: str


def position_tables(extras: dict) -> PositionTables | None:
    """The tables of a trace's positions, None for a model without any (an ablation)."""
    added = extras.get("positional")
    if added is not None:
        table = np.asarray(added, dtype=np.float64)
        rows = table
        names = [str(d) for d in range(table.shape[1])]
        title, similar = "positional encoding added to the embeddings", \
            "cosine similarity between positions"
    elif extras.get("rotary_angles") is not None:
        table = np.asarray(extras["rotary_angles"], dtype=np.float64)  # (T, d_k/2)
        rows = np.concatenate([np.cos(table), np.sin(table)], axis=1)
        names = [f"pair {p}" for p in range(table.shape[1])]
        title = ("rotary angles i·θ_p (radians) that turn q and k; nothing is added to the "
                 "embeddings")
        similar = "cosine similarity between the positions' rotations (depends on i − j)"
    else:
        return None
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return PositionTables(table, names, title, unit @ unit.T, similar)


def rotary_note(convention: str) -> str:
    """A line under the attention card for a model whose q and k are rotated."""
    if ROTATED not in convention:
        return ""
    return ("<p>Rotary positions (RoPE, Su et al. 2021): q and k are rotated by their "
            "positions before the scores, so the q and k shown, and the worked computation, "
            "are the rotated ones.</p>")
