"""Token ids of a whole corpus and its contiguous, deterministic train/validation/test split.

`split_ids(ids, val, test)` cuts the ids in order: train is the first (1 - val - test) share,
validation the next `val` share, test the last `test` share (each rounded to whole tokens).
Nothing is shuffled, so the same corpus and settings always give the same three blocks, and
validation text never sits inside the training block. `train`, `val` and `test` are views of
`ids` (no copies). Batching into windows is the training code's business.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

import numpy as np

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.boundaries import encode_chunks
from workbench.core.corpus.text_chunks import Pacer, text_chunks
from workbench.core.corpus.tokenizers import (
    UNK,
    BpeTokenizer,
    CharTokenizer,
    Tokenizer,
    WordTokenizer,
)
from workbench.core.events import Event, JobFinished, Progress
from workbench.core.jobs import JobSpec, UserFacingError

MIN_SPLIT_TOKENS = 2  # a block needs an input and a target token to be of any use


@dataclass
class TokenizedCorpus:
    tokenizer: Tokenizer
    ids: np.ndarray  # (N,) int64, the whole corpus
    train: np.ndarray  # ids[:n_train]
    val: np.ndarray  # ids[n_train:n_train + n_val]
    test: np.ndarray  # ids[n_train + n_val:]
    config: TokenizerConfig = field(default_factory=TokenizerConfig)
    corpus_name: str = ""
    unknown_tokens: int | None = None  # ids equal to UNK; counted when encoding
    token_counts: np.ndarray | None = field(default=None, repr=False)  # (vocab_size,) int64

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def split_sizes(self) -> dict[str, int]:
        return {"train": len(self.train), "val": len(self.val), "test": len(self.test)}

    def unknown_count(self) -> int:
        if self.unknown_tokens is None:
            self.unknown_tokens = int(np.count_nonzero(self.ids == UNK))
        return self.unknown_tokens


def split_ids(ids: np.ndarray, val_fraction: float, test_fraction: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contiguous blocks in order: train, validation, test (see the module docstring)."""
    n = len(ids)
    n_val = int(round(n * val_fraction))
    n_test = int(round(n * test_fraction))
    n_train = n - n_val - n_test
    too_small = n_train < MIN_SPLIT_TOKENS or (0 < n_val < MIN_SPLIT_TOKENS) or (
        val_fraction > 0 and n_val == 0)
    if too_small:
        raise UserFacingError(
            f"The corpus has only {n} tokens: too few to split into training "
            f"({1 - val_fraction - test_fraction:.0%}) and validation ({val_fraction:.0%}) "
            "blocks of at least 2 tokens. Load a longer text or lower the validation share."
        )
    return ids[:n_train], ids[n_train:n_train + n_val], ids[n_train + n_val:]


def train_tokenizer(text: str, config: TokenizerConfig) -> Tokenizer:
    chunks = text_chunks(text)
    if config.kind == "char":
        return CharTokenizer.train(chunks, config.min_count)
    if config.kind == "word":
        return WordTokenizer.train(chunks, config.word_pattern, config.lowercase,
                                   config.min_count, config.max_word_vocab)
    if config.kind == "bpe":
        return BpeTokenizer.train(text.splitlines(keepends=True), config.bpe_vocab_size)
    raise UserFacingError(f"Unknown tokenizer '{config.kind}'. Choose char, word or bpe.")


def _join(parts: list) -> Generator[Event, None, np.ndarray]:
    """One array from the encoded pieces, copied piece by piece between yields.

    `np.concatenate` of 100M ids is a single call of seconds (mostly page faults of the new
    array) that would hold the interpreter, and so the window, for all that time.
    """
    ids = np.empty(sum(len(p) for p in parts), dtype=np.int64)
    position, pacer = 0, Pacer()
    for i, part in enumerate(parts):
        ids[position:position + len(part)] = part
        position += len(part)
        parts[i] = None  # free each piece once copied: lower peak memory
        if pacer.due():  # a yield between copies lets the GUI thread take the interpreter
            yield Progress(position, len(ids), "Collecting token ids")
    return ids


def tokenize_job(corpus, config: TokenizerConfig, tokenizer: Tokenizer | None = None) -> JobSpec:
    """Train a tokenizer on the corpus text (unless one is given), encode it and split it.

    The job ends with `JobFinished(result=TokenizedCorpus)`. Encoding goes chunk by chunk so a
    large corpus can be cancelled and never holds the interpreter for long.
    """

    def job(control) -> Iterator[Event]:
        problems = config.problems()
        if problems:
            raise UserFacingError("Tokenizer settings: " + " ".join(problems))
        text = corpus.text
        total = max(1, 2 * len(text))
        label = {"char": "characters", "word": "words", "bpe": "BPE merges"}.get(config.kind, "")
        yield Progress(0, total, f"Building the {label} vocabulary")
        trained = tokenizer or train_tokenizer(text, config)
        trained.boundaries = config.boundaries
        done = len(text)
        yield Progress(done, total, f"Encoding with {trained.vocab_size} tokens")
        parts, pacer = [], Pacer()
        counts = np.zeros(trained.vocab_size, dtype=np.int64)
        for chunk, part in encode_chunks(trained, text_chunks(text), config.boundaries):
            counts += np.bincount(part, minlength=trained.vocab_size)[:trained.vocab_size]
            parts.append(part)
            done += len(chunk)
            control.check()
            if pacer.due():
                yield Progress(done, total, "Encoding")
        ids = yield from _join(parts)
        train, val, test = split_ids(ids, config.val_fraction, config.test_fraction)
        result = TokenizedCorpus(trained, ids, train, val, test, config,
                                 corpus_name=getattr(corpus, "name", ""),
                                 unknown_tokens=int(counts[UNK]), token_counts=counts)
        yield JobFinished(result=result)

    return JobSpec(f"Tokenizing ({config.kind})", job)
