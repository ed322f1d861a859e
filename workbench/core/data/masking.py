"""BERT's masked-LM corruption (SEEDS T16; Devlin et al. 2019, section 3.1).

Of the real tokens of a sentence, each is chosen with probability 15% (a sentence where none
was chosen gets one chosen at random, so every sentence teaches something). Of the chosen:
80% are replaced by [MASK], 10% by a token drawn uniformly from the ordinary vocabulary, and
10% are kept as they are. The loss is the cross-entropy at the chosen positions only: the
target is the original token there and IGNORE_INDEX everywhere else. Why not always [MASK]:
[MASK] never occurs when the model is used later, so it must also learn to represent (and
check) real tokens. [The 80/10/10 split is NOT IN SEEDS; the seeds give the 15% only.]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MASK_TEXT = "[MASK]"  # what a user types for the blank (a probe, Fill in the blank)
IGNORE_INDEX = -100
CHOOSE_RATE = 0.15
MASK_SHARE, RANDOM_SHARE = 0.8, 0.1  # the rest (10%) is kept


@dataclass(frozen=True)
class Corruption:
    inputs: np.ndarray  # (B, S) what the model reads
    targets: np.ndarray  # (B, S) the original token where chosen, IGNORE_INDEX elsewhere
    chosen: np.ndarray  # (B, S) bool
    how: np.ndarray  # (B, S) int8: 0 not chosen, 1 [MASK], 2 random token, 3 kept


def corrupt(ids: np.ndarray, mask: np.ndarray, rng: np.random.Generator, mask_id: int,
            first_ordinary: int, vocab_size: int, rate: float = CHOOSE_RATE) -> Corruption:
    """Corrupt a padded batch `ids` (B, S) whose real tokens are `mask` (B, S) True.
    Random replacements come from [first_ordinary, vocab_size) (no special token, no [MASK])."""
    ids = np.asarray(ids, dtype=np.int64)
    mask = np.asarray(mask, dtype=bool)
    chosen = (rng.random(ids.shape) < rate) & mask
    for row in np.flatnonzero(~chosen.any(axis=1) & mask.any(axis=1)):
        chosen[row, rng.choice(np.flatnonzero(mask[row]))] = True
    roll = rng.random(ids.shape)
    to_mask = chosen & (roll < MASK_SHARE)
    to_random = chosen & (roll >= MASK_SHARE) & (roll < MASK_SHARE + RANDOM_SHARE)
    inputs = ids.copy()
    inputs[to_mask] = mask_id
    inputs[to_random] = rng.integers(first_ordinary, vocab_size, size=int(to_random.sum()))
    targets = np.where(chosen, ids, IGNORE_INDEX)
    how = np.zeros(ids.shape, dtype=np.int8)
    how[chosen] = 3
    how[to_mask] = 1
    how[to_random] = 2
    return Corruption(inputs, targets, chosen, how)
