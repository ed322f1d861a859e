"""Cut a long text into pieces of a quarter megabyte, at line breaks where there is one.

Long C-level calls (a regex over 100 MB, a Counter over it, an encode) hold Python's global
interpreter lock for their whole length and so freeze the window even from a worker thread.
Working piece by piece keeps every such call short (a regex plus a Counter over a quarter
megabyte takes some 10-30 ms) and lets a job yield and be cancelled.
"""

from __future__ import annotations

from collections.abc import Iterator

CHUNK_CHARS = 1 << 18


def text_chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[str]:
    """Consecutive pieces whose concatenation is `text`; each ends after a newline if possible."""
    start, n = 0, len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            cut = text.rfind("\n", start, end)
            if cut > start:
                end = cut + 1
        yield text[start:end]
        start = end
