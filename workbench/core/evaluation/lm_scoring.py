"""Nats per token of a language model on a text: fresh blocks, or the state carried through.

Fresh blocks (`heldout_blocks`, `score`): each piece of text (a document) is cut into
consecutive blocks of `block` + 1 tokens (never across the seam between two pieces); the model
reads the first `block` from a fresh start (no state carried in) and is scored on the next
tokens, so a recurrent model and a transformer with a `block`-token context are read alike.
Every token after a piece's first is predicted once, except a last stretch shorter than a block.

Carried state (`score_carried`, `carried_nats`): each piece read whole from a fresh start, every
token after its first predicted with all of the piece before it (a recurrent model's state
carried). `carried_nats` reads a piece in chunks with the state carried between them (the same
figure as one pass, without a (length, V) logits tensor).

benchmarks/heldout.py scores nanoGPT and the workbench with these; `workbench evaluate` too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

CARRIED_CHUNK = 2048  # tokens per forward pass when the state is carried


def heldout_blocks(ids: np.ndarray, pieces: list[tuple[int, int]], block: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (N, block): consecutive blocks inside each piece, the next
    block starting where the last one's targets end, so every character after a piece's
    first is predicted once."""
    inputs, targets = [], []
    for start, end in pieces:
        for at in range(start, end - block, block):
            chunk = ids[at: at + block + 1]
            inputs.append(chunk[:-1])
            targets.append(chunk[1:])
    if not inputs:
        raise ValueError(f"no test piece is longer than {block} tokens")
    return np.stack(inputs).astype(np.int64), np.stack(targets).astype(np.int64)


def score(logits_of: Callable, inputs: np.ndarray, targets: np.ndarray, batch: int = 128
          ) -> float:
    """Mean next-token cross-entropy in nats: `logits_of(x, y)` gives (B, T, V) logits for a
    (B, T) batch of inputs (the targets are there for models that need them to return every
    position's logits, as nanoGPT's does)."""
    import torch
    import torch.nn.functional as F

    total, count = 0.0, 0
    with torch.no_grad():
        for at in range(0, len(inputs), batch):
            x = torch.from_numpy(inputs[at: at + batch])
            y = torch.from_numpy(targets[at: at + batch])
            logits = logits_of(x, y).float()
            total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                           reduction="sum"))
            count += y.numel()
    return total / count


def score_carried(logits_of: Callable, ids: np.ndarray, pieces: list[tuple[int, int]]) -> float:
    """Mean next-token cross-entropy in nats over whole pieces: `logits_of(x, y)` gets each
    piece as one (1, length - 1) sequence, so a recurrent model carries its state from the
    piece's first character to its last (and never across a seam)."""
    import torch
    import torch.nn.functional as F

    total, count = 0.0, 0
    with torch.no_grad():
        for start, end in pieces:
            if end - start < 2:
                continue
            piece = torch.from_numpy(np.asarray(ids[start:end], dtype=np.int64))
            x, y = piece[None, :-1], piece[None, 1:]
            logits = logits_of(x, y).float()
            total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                           reduction="sum"))
            count += y.numel()
    if count == 0:
        raise ValueError("no test piece is longer than one token")
    return total / count


def carried_nats(model, ids: np.ndarray, pieces: list[tuple[int, int]],
                 chunk: int = CARRIED_CHUNK) -> tuple[float, int]:
    """(summed nats, tokens predicted) of a workbench model that keeps a state, each piece
    read whole from a fresh state, `chunk` tokens per pass with the state carried."""
    import torch
    import torch.nn.functional as F

    total, count = 0.0, 0
    device = next(model.parameters()).device
    with torch.no_grad():
        for start, end in pieces:
            state = model.init_state(1, device)
            for at in range(start, end - 1, chunk):
                stop = min(at + chunk, end - 1)
                x = torch.from_numpy(np.asarray(ids[at:stop], dtype=np.int64))[None].to(device)
                y = torch.from_numpy(np.asarray(ids[at + 1:stop + 1], dtype=np.int64)
                                     )[None].to(device)
                logits, state = model(x, state)
                total += float(F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                               y.reshape(-1), reduction="sum"))
                count += y.numel()
    return total, count


def fresh_nats(model, inputs: np.ndarray, targets: np.ndarray, batch: int = 64) -> float:
    """Mean nats per target token of a workbench model over fresh blocks (`heldout_blocks`)."""
    return score(lambda x, y: model(x.to(next(model.parameters()).device), None)[0],
                 inputs, targets, batch)
