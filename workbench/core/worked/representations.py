"""Two of the course's small pictures of representations, with numbers a student types:
one-hot against dense vectors (seed 002: the dot product of the one-hot 'hotel' and 'motel' is
0, like 'hotel' and 'cat': one-hot says nothing about similarity; dense vectors do), and the
pooling of a sentence's hidden states into one vector for a classifier (SLP3 sec. 9.4.2, eq.
9.14: the last state, the mean or the element-wise max)."""

from __future__ import annotations

import numpy as np

from workbench.core.worked.records import Line, WorkedComputation, matrix, vec


def one_hot_vs_dense(words: list[str], dense: np.ndarray) -> WorkedComputation:
    if len(words) < 2:
        raise ValueError("Type two words or more.")
    if dense.shape[0] != len(words):
        raise ValueError(f"{len(words)} words need {len(words)} dense rows (one a word), not "
                         f"{dense.shape[0]}.")
    one_hot = np.eye(len(words))
    dots = one_hot @ one_hot.T
    unit = dense / np.maximum(np.linalg.norm(dense, axis=1, keepdims=True), 1e-12)
    cosines = unit @ unit.T
    pairs = [(i, j) for i in range(len(words)) for j in range(i + 1, len(words))]
    closest = max(pairs, key=lambda p: cosines[p])
    lines = (
        Line("one-hot vectors", "a 1 at the word's own position, 0 elsewhere",
             "\n".join(f"{w}: {vec(row, 0)}" for w, row in zip(words, one_hot, strict=True)),
             one_hot),
        Line("one-hot dot products", "x_a · x_b: 1 with itself, 0 with every other word",
             matrix(dots, 0), dots),
        Line("dense vectors", "one typed row a word", matrix(dense), dense),
        Line("dense cosine similarities", "cos(a, b) = a · b / (‖a‖ ‖b‖)", matrix(cosines),
             cosines),
    )
    return WorkedComputation(
        "One-hot against dense vectors", lines, values={"result": dots, "cosines": cosines},
        note=f"One-hot: every pair of different words scores 0, so '{words[0]}' is as far from "
             f"'{words[1]}' as from any other. Dense: the closest pair is '{words[closest[0]]}' "
             f"and '{words[closest[1]]}' (cosine {cosines[closest]:.3f}).")


def pooling_example(states: np.ndarray) -> WorkedComputation:
    if states.shape[0] < 2:
        raise ValueError("Type two hidden states or more, one a row (h_1 … h_n).")
    last, mean, top = states[-1], states.mean(axis=0), states.max(axis=0)
    lines = (
        Line("hidden states", "h_1 … h_n, one row a token", matrix(states), states),
        Line("last", "h = h_n (what a left-to-right RNN has read at the end)", vec(last), last),
        Line("mean", "h = (1/n) Σ_t h_t", vec(mean), mean),
        Line("max", "h_j = max_t h_t,j (each unit's largest value over the sentence)",
             vec(top), top),
    )
    return WorkedComputation("Pooling the hidden states into one vector", lines,
                             values={"result": mean, "last": last, "max": top},
                             note="The classifier reads the pooled h: ŷ = softmax(W h + b). "
                                  "The Classify task offers last, mean, max, attention and "
                                  "[CLS] pooling.")
