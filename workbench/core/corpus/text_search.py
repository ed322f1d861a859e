"""Find a literal string in the whole corpus text, case-insensitively, a megabyte at a time.

A case-insensitive search through 100 MB that finds nothing takes over a second in one `re`
call, and a call holds the interpreter throughout; so the search is a generator that yields
after each chunk (the fraction of the text searched so far) and the caller decides how much
to do at once: the corpus preview does ~25 ms per turn of the event loop.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import NamedTuple

SEARCH_CHUNK = 1 << 20


class Hit(NamedTuple):
    start: int
    end: int
    wrapped: bool  # found only after going round the end (or start) of the text


def search_steps(text: str, query: str, begin: int, end: int, backward: bool = False
                 ) -> Generator[float, None, Hit | None]:
    """The next match after `end` (or the last one before `begin` when `backward`), going
    round the text once; yields the fraction searched after each chunk, returns the Hit."""
    if not query or not text:
        return None
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    n, span = len(text), len(query)
    if backward:
        legs = ((begin, 0, False), (n, begin, True))
    else:
        legs = ((end, n, False), (0, end, True))
    searched = 0
    for first, last, wrapped in legs:
        chunks = _backward(pattern, text, first, last, span) if backward else \
            _forward(pattern, text, first, last, span)
        for size, match in chunks:
            if match is not None:
                return Hit(match.start(), match.end(), wrapped)
            searched += size
            yield min(1.0, searched / max(1, n))
    return None


def _forward(pattern: re.Pattern, text: str, start: int, stop: int, span: int):
    """(chunk size, first match starting in the chunk or None) for chunks from start to stop;
    each chunk reaches `span` characters past its end so a match across the seam is found."""
    for pos in range(start, stop, SEARCH_CHUNK):
        top = min(stop, pos + SEARCH_CHUNK)
        match = pattern.search(text, pos, min(len(text), top + span - 1))
        if match is not None and match.start() >= top:
            match = None  # the next chunk reports it
        yield top - pos, match


def _backward(pattern: re.Pattern, text: str, start: int, stop: int, span: int):
    """Chunks from `start` back to `stop`: the last match ending at or before `start`."""
    high = start
    while high > stop:
        low = max(stop, high - SEARCH_CHUNK)
        last = None
        for last in pattern.finditer(text, low, min(start, high + span - 1)):  # noqa: B007
            pass
        yield high - low, last
        high = low
