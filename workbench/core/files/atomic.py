"""Replacing a file so that a crash leaves the old one or the new one, never half of either: the
new content goes to a temporary file beside it (mkstemp: `.<name>.<8 characters>.tmp`, the
pattern the run folders' clean-up recognises as theirs), is flushed to the disk, and is renamed
over the file; the folder is synced so the rename survives a power cut."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

WRITE_PIECE = 1 << 20  # large files are written in pieces (a crash can cut one short)


def fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; Windows has no directory handles)."""
    if os.name != "posix":
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A file to write the new content of `path` into; it replaces `path` when the block ends,
    and is removed if the block raises (the old file is then as it was)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` (see the module docstring)."""
    with atomic_output(path) as out:
        view = memoryview(data)
        for start in range(0, len(view), WRITE_PIECE):
            out.write(view[start:start + WRITE_PIECE])
