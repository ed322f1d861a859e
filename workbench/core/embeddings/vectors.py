"""Word vectors as plain numpy: the words, their (N, d) float32 matrix, corpus counts, and for
fastText the character n-gram rows that give unseen words a vector. This torch- and gensim-free
dataclass is what the Qt room holds (never a gensim object); the queries the explorer asks live
in `queries.py`, are reachable as methods, and run on the query thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from workbench.core.embeddings import queries
from workbench.core.embeddings.subwords import SubwordVectors
from workbench.core.jobs import UserFacingError


@dataclass
class WordVectors:
    words: list[str]
    vectors: np.ndarray  # (N, d) float32
    counts: np.ndarray | None = None  # (N,) corpus frequency, if known
    source: str = ""
    notes: list[str] = field(default_factory=list)
    subwords: SubwordVectors | None = None  # fastText: a vector for any word
    # word2vec's output vectors u (gensim's syn1neg) when trained here with negative sampling,
    # and the power of the counts its noise distribution used: what the worked example reads
    output_vectors: np.ndarray | None = None
    noise_exponent: float = 0.75
    architecture: str = ""  # "skip-gram" or "CBOW" when trained here ("" when imported)

    def __post_init__(self) -> None:
        self.vectors = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise ValueError("one vector per word is needed")

    @cached_property
    def index(self) -> dict[str, int]:
        return {word: i for i, word in enumerate(self.words)}

    @cached_property
    def folded_index(self) -> dict[str, str]:
        """Case-folded word -> its first (usually most frequent) form in the vocabulary."""
        folded: dict[str, str] = {}
        for word in self.words:
            folded.setdefault(word.casefold(), word)
        return folded

    @cached_property
    def unit(self) -> np.ndarray:
        norms = np.linalg.norm(self.vectors, axis=1, keepdims=True)
        return self.vectors / np.maximum(norms, 1e-12)

    @property
    def size(self) -> int:
        return self.vectors.shape[1]

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def lookup(self, word: str) -> str | None:
        """The vocabulary's form of `word`: the word itself, else the same word in another case
        (vectors trained on lowercased text know 'romeo' but not 'Romeo'), else None."""
        if word in self.index:
            return word
        return self.folded_index.get(word.casefold())

    def id_of(self, word: str) -> int:
        form = self.lookup(word)
        if form is None:
            raise UserFacingError(f"'{word}' is not in the vocabulary ({len(self)} words), "
                                  "in any case.")
        return self.index[form]

    def vector(self, word: str) -> np.ndarray:
        return self.vectors[self.id_of(word)]

    # --- queries (workbench.core.embeddings.queries) -----------------------------------------

    def neighbours(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        return queries.neighbours(self, word, k)

    def similarity(self, a: str, b: str) -> float:
        return queries.similarity(self, a, b)

    def analogy(self, a: str, b: str, c: str, k: int = 5, method: str = "3cosadd"):
        return queries.analogy(self, a, b, c, k, method)

    def odd_one_out(self, words: list[str]) -> str:
        return queries.odd_one_out(self, words)

    def project_on_axes(self, x_axis: tuple[str, str], y_axis: tuple[str, str]) -> np.ndarray:
        return queries.project_on_axes(self, x_axis, y_axis)

    def feature_table(self, words: list[str], axes: list[tuple[str, str]]) -> np.ndarray:
        return queries.feature_table(self, words, axes)
