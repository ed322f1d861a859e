"""The explorer's questions, asked of `WordVectors` with numpy alone (no gensim needed).

Cosine similarity is a dot product of unit vectors, so the matrix is normalised once
(`WordVectors.unit`) and every query is one matrix-vector product over it plus an
`argpartition`: a few milliseconds for 100k words × 300 dimensions on a quiet machine.

  similarity(a, b) = a·b / (‖a‖ ‖b‖)
  3CosAdd:  argmax_x cos(x, b − a + c)                      (king − man + woman ≈ queen)
  3CosMul:  argmax_x cos(x, b) cos(x, c) / (cos(x, a) + ε), cosines shifted to [0, 1]
            (Levy & Goldberg 2014) [NOT IN SEEDS]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from workbench.core.jobs import UserFacingError

if TYPE_CHECKING:
    from workbench.core.embeddings.vectors import WordVectors

EPSILON = 1e-3
METHODS = ("3cosadd", "3cosmul")


def top(vectors: WordVectors, scores: np.ndarray, k: int,
        exclude: set[int]) -> list[tuple[str, float]]:
    """The k best-scoring words (excluding some ids), best first, with their scores."""
    wanted = min(k + len(exclude), len(scores))
    best = np.argpartition(-scores, wanted - 1)[:wanted]
    best = best[np.argsort(-scores[best])]
    return [(vectors.words[i], float(scores[i])) for i in best if i not in exclude][:k]


def neighbours(vectors: WordVectors, word: str, k: int = 10) -> list[tuple[str, float]]:
    """The k nearest words by cosine similarity, with their scores. A word missing as typed is
    looked up in another case first; fastText vectors answer for unseen words too, from their
    character n-grams."""
    if vectors.lookup(word) is None and vectors.subwords is not None:
        query = vectors.subwords.vector(word)
        return top(vectors, vectors.unit @ (query / max(np.linalg.norm(query), 1e-12)), k,
                   set())
    i = vectors.id_of(word)
    return top(vectors, vectors.unit @ vectors.unit[i], k, {i})


def similarity(vectors: WordVectors, a: str, b: str) -> float:
    return float(vectors.unit[vectors.id_of(a)] @ vectors.unit[vectors.id_of(b)])


def analogy(vectors: WordVectors, a: str, b: str, c: str, k: int = 5,
            method: str = "3cosadd") -> list[tuple[str, float]]:
    """a is to b as c is to ?: the words nearest b − a + c (or best by 3CosMul)."""
    if method not in METHODS:
        raise ValueError(f"unknown analogy method {method}")
    unit = vectors.unit
    ia, ib, ic = vectors.id_of(a), vectors.id_of(b), vectors.id_of(c)
    if method == "3cosadd":
        target = unit[ib] - unit[ia] + unit[ic]
        scores = unit @ (target / np.linalg.norm(target))
    else:
        shifted = [(unit @ unit[i] + 1.0) / 2.0 for i in (ia, ib, ic)]
        scores = shifted[1] * shifted[2] / (shifted[0] + EPSILON)
    return top(vectors, scores, k, {ia, ib, ic})


def odd_one_out(vectors: WordVectors, words: list[str]) -> str:
    """The word least similar to the mean of the group's unit vectors."""
    if len(words) < 3:
        raise UserFacingError("Give at least three words to find the odd one out.")
    ids = [vectors.id_of(w) for w in words]
    mean = vectors.unit[ids].mean(axis=0)
    scores = vectors.unit[ids] @ (mean / np.linalg.norm(mean))
    return words[int(np.argmin(scores))]


def axis_direction(vectors: WordVectors, a: str, b: str) -> np.ndarray:
    """The unit direction from word a to word b (a semantic axis: man → woman)."""
    direction = vectors.unit[vectors.id_of(b)] - vectors.unit[vectors.id_of(a)]
    return direction / max(np.linalg.norm(direction), 1e-12)


def project_on_axes(vectors: WordVectors, x_axis: tuple[str, str],
                    y_axis: tuple[str, str]) -> np.ndarray:
    """Each word's position on x = (b − a) and y = (d − c), as its cosine with each axis."""
    axes = [axis_direction(vectors, a, b) for a, b in (x_axis, y_axis)]
    return vectors.unit @ np.stack(axes, axis=1)  # (N, 2)


def feature_table(vectors: WordVectors, words: list[str],
                  axes: list[tuple[str, str]]) -> np.ndarray:
    """The course's words × features table (seed 003: gender, royal, age, food …) read off the
    vectors: (words, axes) cosines of each word with each axis a → b, from −1 (on a's side) to
    +1 (on b's)."""
    if not words or not axes:
        raise UserFacingError("Type some words and at least one axis as a:b (man:woman).")
    directions = np.stack([axis_direction(vectors, a, b) for a, b in axes], axis=1)
    return vectors.unit[[vectors.id_of(w) for w in words]] @ directions


def user_analogies(vectors: WordVectors, lines: str, method: str = "3cosadd"
                   ) -> list[tuple[str, str, bool]]:
    """Score analogy quads the user typed ('a b c d' per line): (question, answer, right?)."""
    results = []
    for number, line in enumerate(lines.splitlines(), start=1):
        words = line.split()
        if not words or line.startswith(":"):
            continue
        if len(words) != 4:
            raise UserFacingError(f"Line {number} has {len(words)} words; an analogy needs four "
                                  "(a b c d: a is to b as c is to d).")
        a, b, c, d = words
        missing = [w for w in words if vectors.lookup(w) is None]
        if missing:
            results.append((line, "not in vocabulary: " + ", ".join(missing), False))
            continue
        answer = vectors.analogy(a, b, c, k=1, method=method)[0][0]
        # compared with d's vocabulary form: a typed 'Queen' matches the answer 'queen'
        results.append((line, answer, answer == vectors.lookup(d)))
    return results
