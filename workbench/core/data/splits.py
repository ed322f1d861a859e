"""Train / validation / test splits of labelled examples, and what a split leaves unseen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np


def split_indices(count: int, val_fraction: float, test_fraction: float, seed: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A shuffled, seeded cut of range(count) into train, validation and test indices.

    Examples of a labelled file are independent sentences (unlike a running text), so a random
    cut is fair; the seed makes it the same every run. Each held-out part gets at least one
    example when its share is above zero and there are enough examples to spare.
    """
    order = np.random.default_rng([seed, count]).permutation(count)
    n_test = _share(count, test_fraction)
    n_val = _share(count - n_test, val_fraction * count / max(count - n_test, 1))
    test, val = order[:n_test], order[n_test:n_test + n_val]
    train = order[n_test + n_val:]
    return np.sort(train), np.sort(val), np.sort(test)


def _share(count: int, fraction: float) -> int:
    if fraction <= 0 or count < 3:
        return 0
    return int(min(count - 1, max(1, round(count * fraction))))


def unseen_labels(train: Iterable[str], held_out: Iterable[str]) -> dict[str, int]:
    """Labels (or tags) of the held-out part that training never shows, with their counts: a
    model cannot predict them, so they cap its accuracy and the user should be told."""
    seen = set(train)
    counts = Counter(label for label in held_out if label not in seen)
    return dict(sorted(counts.items()))


def unseen_report(unseen: dict[str, int], total: int, what: str = "label",
                  split: str = "test") -> str:
    """One sentence for the user, or "" when every held-out label was seen in training."""
    if not unseen:
        return ""
    count = sum(unseen.values())
    names = ", ".join(f"{name} ({n})" for name, n in list(unseen.items())[:8])
    more = "" if len(unseen) <= 8 else f" and {len(unseen) - 8} more"
    return (f"{len(unseen)} {what}{'s' * (len(unseen) != 1)} of the {split} split never occur "
            f"in training: {names}{more}. The model cannot predict them: {count} of {total} "
            f"{split} items ({count / max(total, 1):.1%}) will count as errors.")
