"""The Generate console's default prompt, taken from the opened corpus.

A fixed prompt fails on most corpora: "ROMEO:" never occurs in the shipped plays (their
speakers are written "Romeo."), so a character model continued it with text it had never
seen, and a newcomer's first generation looked broken. The prompt is instead the corpus's
most frequent short line (in a play, a speaker's name; in a list of headings, a heading),
or, in prose without repeated lines, the first words of its first line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

SAMPLE_CHARACTERS = 2_000_000  # enough lines to find the common ones, bounded on any corpus
SHORTEST, LONGEST = 2, 30  # characters of a line that may serve as a prompt
AT_LEAST = 3  # times a short line must occur to count as a corpus habit
FIRST_WORDS = 3
_LETTER = re.compile(r"[^\W\d_]")


def suggested_prompt(documents: Sequence[str]) -> str:
    """A prompt the corpus itself would start a passage with; "" for a corpus without words."""
    sample, size = [], 0
    for text in documents:
        sample.append(text[:SAMPLE_CHARACTERS - size])
        size += len(sample[-1])
        if size >= SAMPLE_CHARACTERS:
            break
    lines = [line.strip() for text in sample for line in text.splitlines()]
    short = Counter(line for line in lines
                    if SHORTEST <= len(line) <= LONGEST and _LETTER.search(line))
    if short:
        line, count = min(short.items(), key=lambda lc: (-lc[1], lc[0]))
        if count >= AT_LEAST:
            return line + "\n"
    for line in lines:
        if _LETTER.search(line):
            return " ".join(line.split()[:FIRST_WORDS]) + " "
    return ""
