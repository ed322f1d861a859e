"""How much text a corpus may hold, and which files may be read at all.

A corpus costs memory many times its size: the raw bytes while decoding, the text (1-4 bytes
a character), and 8 bytes per token id (a character tokenizer makes one per character), before
any model. So the default limit is a sixteenth of this computer's memory, counted on the text
after decompression (a 2 MB .gz can hold 2 GB) and checked while reading, so an oversized file
stops early with a message instead of exhausting memory. The limit is a setting (the Corpus
panel's "Largest corpus" box, `WORKBENCH_MAX_CORPUS_MB` for the CLI).

Only regular files are read: a FIFO blocks until a writer appears (and cannot be cancelled),
/dev/zero never ends. The check happens on the opened descriptor (opened non-blocking, so a
FIFO without a writer does not hang the open itself).
"""

from __future__ import annotations

import os

# the one bounded reader (files/bounded.py); these names stay importable from here
from workbench.core.files.bounded import (
    NotRegularFileError,
    file_kind,
    open_regular,
    total_memory_bytes,
)

__all__ = ["NotRegularFileError", "file_kind", "open_regular", "total_memory_bytes"]

LIMIT_ENV = "WORKBENCH_MAX_CORPUS_MB"
MEMORY_SHARE = 16  # the default limit is total memory / MEMORY_SHARE
FLOOR_MB = 64


def default_max_corpus_mb() -> int:
    return max(FLOOR_MB, total_memory_bytes() // MEMORY_SHARE // 2**20)


def max_corpus_mb(chosen: int | None = None) -> int:
    """The limit in force: the one chosen (the panel's box), else the environment's, else the
    default share of memory."""
    if chosen:
        return int(chosen)
    try:
        return int(os.environ[LIMIT_ENV])
    except (KeyError, ValueError):
        return default_max_corpus_mb()


def limit_advice(limit_mb: int) -> str:
    return (f"The corpus limit is {limit_mb:,} MB of text (after decompression). Raise "
            "'Largest corpus' in the Corpus panel (or set WORKBENCH_MAX_CORPUS_MB) if this "
            "computer has the memory, or load a part of the text.")
