"""fastText's vectors for unseen words, in numpy: the mean of the word's character n-gram rows.

A fastText model keeps one row per hashed character n-gram of `<word>` (Bojanowski et al.
2017). gensim answers an unseen word with `FastTextKeyedVectors.get_vector`; holding that bound
method would carry a live gensim object into the window, so the n-gram matrix is kept here as a
plain array and the hashing is reproduced: the n-grams of `<word>`'s UTF-8 bytes that start and
end on character boundaries (3 to 6 characters by default), each hashed with 32-bit FNV-1a over
*signed* bytes, as Facebook's dictionary.cc and gensim's `ft_hash_bytes` do, modulo the bucket
count. tests/core/test_embeddings.py checks the vectors against gensim's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FNV_OFFSET, FNV_PRIME, MASK = 2166136261, 16777619, 0xFFFFFFFF


def ngram_bytes(word: str, min_n: int, max_n: int) -> list[bytes]:
    """The character n-grams of `<word>` as UTF-8 byte strings (fastText's order)."""
    data = f"<{word}>".encode()
    size = len(data)
    grams = []
    for i in range(size):
        if data[i] & 0xC0 == 0x80:  # inside a character: n-grams start on a boundary
            continue
        j, n = i, 1
        while j < size and n <= max_n:
            j += 1
            while j < size and data[j] & 0xC0 == 0x80:
                j += 1
            if n >= min_n and not (n == 1 and (i == 0 or j == size)):
                grams.append(data[i:j])
            n += 1
    return grams


def fnv1a_signed(data: bytes) -> int:
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ ((b - 256 if b > 127 else b) & MASK)) * FNV_PRIME) & MASK
    return h


@dataclass
class SubwordVectors:
    ngrams: np.ndarray  # (buckets, d) float32
    min_n: int
    max_n: int

    def vector(self, word: str) -> np.ndarray:
        """The mean of the word's n-gram rows; zeros when it has no n-gram of the lengths."""
        buckets = len(self.ngrams)
        rows = [fnv1a_signed(g) % buckets for g in ngram_bytes(word, self.min_n, self.max_n)]
        if not rows or buckets == 0:
            return np.zeros(self.ngrams.shape[1], dtype=np.float32)
        return self.ngrams[rows].sum(axis=0) / len(rows)
