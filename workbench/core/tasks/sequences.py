"""Batches of whole sentences for the encoder tasks: padding, masks and the order of rows.

Rows follow a fresh permutation of the training examples each epoch (seeded by (seed,
epoch)), so the batch of a step is a pure function of the step and a resumed run reads exactly
the batches the uninterrupted one would have. Each batch is padded to its longest row only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from workbench.core.data.padding import pad  # noqa: F401 - the tasks' padding, re-exported


def epoch_rows(count: int, batch_size: int, step: int, seed: int) -> np.ndarray:
    """The example indices of training batch `step`: positions step·B … step·B + B − 1 of the
    endless sequence of per-epoch permutations."""
    start = step * batch_size
    rows = []
    while len(rows) < batch_size:
        epoch, offset = divmod(start + len(rows), count)
        order = epoch_order(count, seed, epoch)
        rows.extend(order[offset: offset + batch_size - len(rows)].tolist())
    return np.asarray(rows, dtype=np.int64)


@lru_cache(maxsize=4)
def epoch_order(count: int, seed: int, epoch: int) -> np.ndarray:
    """The permutation of one epoch, drawn once: drawing it again for every batch cost the
    masked-LM preset (107,608 Shakespeare lines) 3 ms a step, about 10% of its step on one
    thread (bench_encoder_tasks --speed). Read-only, as the cache shares it."""
    order = np.random.default_rng([seed, epoch]).permutation(count)
    order.setflags(write=False)
    return order


def fixed_batches(count: int, batch_size: int) -> list[np.ndarray]:
    """Index batches over all `count` examples in order (validation, test)."""
    return [np.arange(i, min(i + batch_size, count)) for i in range(0, count, batch_size)]
