"""Corpus statistics: sizes, vocabularies, type/token ratio, Zipf curve, character inventory.

Words here are runs of letters and digits with inner apostrophes ("o'er", "'tis" counts as
"tis"), case-folded, so "The" and "the" are one type; this is a description of the text and
is independent of the tokenizer chosen for training. Lines are counted per document (a last
line without a newline counts too). Counting goes a megabyte at a time so a large corpus keeps
the window responsive and the job cancellable.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.core.corpus.prompt import suggested_prompt
from workbench.core.corpus.text_chunks import Pacer, text_chunks
from workbench.core.events import Event, Progress
from workbench.core.jobs import run_to_end

WORD = re.compile(r"\w+(?:'\w+)*")
TOP_WORDS = 200


@dataclass
class CorpusStats:
    characters: int
    words: int
    lines: int
    documents: int
    char_vocab: int
    word_vocab: int
    word_counts: np.ndarray = field(repr=False)  # (word_vocab,) int64, most frequent first
    top_words: list[tuple[str, int]] = field(repr=False)  # the TOP_WORDS most frequent
    char_inventory: list[tuple[str, int]] = field(repr=False)  # every character, by count
    prompt: str = ""  # the Generate console's default prompt (corpus/prompt.py)

    @property
    def type_token_ratio(self) -> float:
        """Word types / word tokens (0 for a text without words)."""
        return self.word_vocab / self.words if self.words else 0.0

    def zipf(self) -> tuple[np.ndarray, np.ndarray]:
        """(rank, frequency) with rank 1 = most frequent word: the rank-frequency curve."""
        ranks = np.arange(1, len(self.word_counts) + 1, dtype=np.int64)
        return ranks, self.word_counts

    def zipf_slope(self) -> float:
        """Least-squares slope of log frequency against log rank (about -1 for Zipf's law)."""
        ranks, counts = self.zipf()
        if len(ranks) < 2:
            return 0.0
        return float(np.polyfit(np.log(ranks), np.log(counts), 1)[0])


def _count_chars(chunk: str, into: Counter) -> None:
    points = np.frombuffer(chunk.encode("utf-32-le"), dtype=np.uint32)
    if len(points) == 0:
        return
    counts = np.bincount(points)  # code point -> count, fast even for a megabyte
    for point in np.flatnonzero(counts):
        into[chr(point)] += int(counts[point])


def _line_count(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def statistics_steps(documents: Sequence[str]) -> Generator[Event, None, CorpusStats]:
    """Count everything, yielding Progress per megabyte; returns the `CorpusStats`."""
    total = sum(len(d) for d in documents) or 1
    chars: Counter = Counter()
    words: Counter = Counter()
    lines = done = 0
    pacer = Pacer()
    for document in documents:
        lines += _line_count(document)
        for chunk in text_chunks(document):
            _count_chars(chunk, chars)
            words.update(WORD.findall(chunk.lower()))
            done += len(chunk)
            if pacer.due():
                yield Progress(done, total, "Counting words and characters")
    ranked = sorted(words.items(), key=lambda wc: (-wc[1], wc[0]))
    return CorpusStats(
        characters=sum(len(d) for d in documents),
        words=sum(words.values()),
        lines=lines,
        documents=len(documents),
        char_vocab=len(chars),
        word_vocab=len(words),
        word_counts=np.array([c for _, c in ranked], dtype=np.int64),
        top_words=ranked[:TOP_WORDS],
        char_inventory=sorted(chars.items(), key=lambda cc: (-cc[1], cc[0])),
        prompt=suggested_prompt(documents),
    )


def corpus_statistics(documents: Sequence[str]) -> CorpusStats:
    """The same numbers without a job (scripts and tests)."""
    steps = statistics_steps(documents)
    return run_to_end(steps)
