"""Corpus text to the token lists word2vec trains on.

Words are found with the word alternative of the word tokenizer's default pattern
(`DEFAULT_WORD_PATTERN` without its punctuation and newline alternatives), with the same optional
lowercasing, so a vector's key is spelled exactly like the word tokenizer's token and the bridge
to a language model finds it. Punctuation is left out: it carries little distributional meaning
and would crowd every window.
"""

from __future__ import annotations

import re

from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN

WORD_ALTERNATIVE = DEFAULT_WORD_PATTERN.split("|")[0]  # r"\w+(?:'\w+)*"
WORD = re.compile(WORD_ALTERNATIVE)


def sentences_of(text: str, lowercase: bool) -> list[list[str]]:
    """One token list per non-empty line (verse lines and speeches are natural contexts)."""
    if lowercase:
        text = text.lower()
    return [words for line in text.splitlines() if (words := WORD.findall(line))]
