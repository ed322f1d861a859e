"""Initialise a language model's input embedding from word vectors, with a coverage report.

Vectors are per word, so they apply to word tokenizers and to BPE tokens that are whole words
(byte-level BPE marks a leading space with 'Ġ', which is dropped for the lookup). A character
tokenizer has no words: the bridge says so instead of initialising nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.jobs import UserFacingError

SPECIALS = 4  # pad, unk, bos, eos: left at zero


@dataclass(frozen=True)
class EmbeddingInit:
    matrix: np.ndarray  # (V, d) rows for the model's vocabulary
    found: list[str]
    missing: list[str]
    freeze: bool = False

    @property
    def coverage(self) -> float:
        total = len(self.found) + len(self.missing)
        return len(self.found) / total if total else 0.0


def _lookup_key(token: str, lowercase: bool) -> str:
    # BpeTokenizer.token() shows the bytes (" king"); raw byte-level vocabularies write "Ġking"
    token = token[1:] if token.startswith("Ġ") else token.lstrip(" ")
    return token.lower() if lowercase else token


def embedding_init(vectors, tokenizer, freeze: bool = False, seed: int = 0) -> EmbeddingInit:
    if tokenizer.kind == "char":
        raise UserFacingError(
            "The tokenizer is character-level: word vectors cannot initialise character "
            "embeddings. Tokenize by words or BPE in the Corpus panel first.")
    lowercase = bool(getattr(vectors, "lowercase", False)) or all(
        w == w.lower() for w in vectors.words[:1000])
    rng = np.random.default_rng(seed)
    scale = float(vectors.vectors.std())
    matrix = rng.normal(0.0, scale, (tokenizer.vocab_size, vectors.size)).astype(np.float32)
    matrix[:SPECIALS] = 0.0
    found, missing = [], []
    for token_id in range(SPECIALS, tokenizer.vocab_size):
        token = tokenizer.token(token_id)
        key = _lookup_key(token, lowercase)
        if key in vectors:
            matrix[token_id] = vectors.vector(key)
            found.append(token)
        else:  # listed for people: a piece of a character's bytes reads <0xE2>, not U+FFFD
            missing.append(tokenizer.readable_token(token_id))
    return EmbeddingInit(matrix, found, missing, freeze)
