"""Training and validation batches of (inputs, targets) token windows.

Two ways to cut a token stream, chosen by the model's `supports_state` (never by architecture):
- `ContiguousBatches` for models that carry a hidden state: the stream is cut into B parallel
  rows and step k reads window k of every row, so row b of batch k+1 continues row b of batch k
  and the trainer can carry (and detach) the hidden state between windows: truncated
  back-propagation through time.
- `RandomBlocks` for stateless models (transformers): B blocks of T+1 tokens at random offsets.

Both are pure functions of the step number (the random offsets come from a generator seeded by
(seed, step)), so a resumed run reads exactly the batches the uninterrupted run would have.
"""

from __future__ import annotations

import numpy as np

from workbench.core.jobs import UserFacingError


class ContiguousBatches:
    stateful = True

    def __init__(self, ids: np.ndarray, batch_size: int, seq_len: int) -> None:
        row_length = len(ids) // batch_size
        if row_length < 2:
            raise UserFacingError(
                f"The split has {len(ids)} tokens: too few for {batch_size} parallel rows. "
                "Lower the batch size or load a longer corpus.")
        # (B, L): row b is the b-th contiguous stretch of the stream
        self.rows = np.ascontiguousarray(ids[: row_length * batch_size].reshape(batch_size, -1))
        self.seq_len = min(seq_len, row_length - 1)
        self.windows = (row_length - 1) // self.seq_len

    def starts_sequence(self, step: int) -> bool:
        """True when this window starts the rows again (the hidden state must be reset)."""
        return step % self.windows == 0

    def batch(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        start = (step % self.windows) * self.seq_len
        chunk = self.rows[:, start: start + self.seq_len + 1]  # (B, T+1)
        return chunk[:, :-1], chunk[:, 1:]


class RandomBlocks:
    stateful = False

    def __init__(self, ids: np.ndarray, batch_size: int, seq_len: int, seed: int) -> None:
        if len(ids) < 3:
            raise UserFacingError(f"The split has {len(ids)} tokens: too few to train on. "
                                  "Load a longer corpus.")
        self.ids = ids
        self.batch_size = batch_size
        self.seq_len = min(seq_len, len(ids) - 1)
        self.seed = seed

    def starts_sequence(self, step: int) -> bool:
        return True

    def batch(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng([self.seed, step])
        starts = rng.integers(0, len(self.ids) - self.seq_len, size=self.batch_size)
        offsets = np.arange(self.seq_len + 1)
        chunk = self.ids[starts[:, None] + offsets[None, :]]  # (B, T+1)
        return chunk[:, :-1], chunk[:, 1:]


def training_batches(ids: np.ndarray, batch_size: int, seq_len: int, stateful: bool, seed: int):
    if stateful:
        return ContiguousBatches(ids, batch_size, seq_len)
    return RandomBlocks(ids, batch_size, seq_len, seed)


def validation_windows(ids: np.ndarray, batch_size: int, seq_len: int, count: int,
                       stateful: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """`count` windows of the validation split, the same every time, so two validations (and
    two runs) are compared on the same text.

    A model that carries a state reads the first `count` windows of `batch_size` contiguous
    rows, its state carried from window to window as in training. A stateless model reads
    each window afresh, so the same number of blocks is spread evenly over the whole split:
    contiguous rows sampled 16 places of the split's 100 stripes, and a transformer's figure
    read up to 0.035 nats away from the held-out text's (benchmarks/README, "Against
    nanoGPT")."""
    rows = max(1, min(batch_size, (len(ids) - 1) // 2))
    source = ContiguousBatches(ids, rows, seq_len)
    windows = min(count, source.windows)
    if stateful:
        return [source.batch(k) for k in range(windows)]
    seq = source.seq_len
    starts = np.linspace(0, len(ids) - seq - 1, rows * windows).round().astype(np.int64)
    chunk = np.asarray(ids)[starts[:, None] + np.arange(seq + 1)[None, :]]  # (rows·windows, T+1)
    return [(chunk[k: k + rows, :-1], chunk[k: k + rows, 1:])
            for k in range(0, rows * windows, rows)]
