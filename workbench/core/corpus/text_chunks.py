"""Cut a long text into pieces of a quarter megabyte, at line breaks where there is one.

Long C-level calls (a regex over 100 MB, a Counter over it, an encode) hold Python's global
interpreter lock for their whole length and so freeze the window even from a worker thread.
Working piece by piece keeps every such call short (a regex plus a Counter over a quarter
megabyte takes some 10-30 ms) and lets a job yield and be cancelled.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

CHUNK_CHARS = 1 << 18
PROGRESS_RATE_HZ = 30.0


class Pacer:
    """Says when a loop should yield its next Progress: at most `rate` times a second.

    A chunk is often done in a millisecond; an event for each would flood the GUI thread
    with hundreds of status-bar updates a second, which freezes it as surely as a long call.
    The first call is always due, so a job reports at once.
    """

    def __init__(self, rate: float = PROGRESS_RATE_HZ) -> None:
        self.interval = 1.0 / rate
        self.next = 0.0

    def due(self) -> bool:
        now = time.monotonic()
        if now >= self.next:
            self.next = now + self.interval
            return True
        return False


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
