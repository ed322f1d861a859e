"""The one way the app reads a file: regular files only, a size limit per kind, cancellable.

Every file the app reads may be something else than it seems: a named pipe (FIFO) blocks the
reader until a writer appears, and an ordinary `open()` of it cannot be interrupted (a run
followed in the window, or a `train --resume`, hung for half an hour); a link to /dev/zero
never ends and fills memory; a 5 GB file named `run.json` is read whole before the JSON
parser says no. So a read here:

1. stats the path (following links) and refuses anything but a regular file, before opening;
2. opens it with O_NONBLOCK (a FIFO swapped in between the stat and the open cannot block the
   open) and checks the opened descriptor again;
3. compares the size with the limit of its kind before allocating anything, and stops at the
   limit while reading too (a file that grows, a device that lies about its size);
4. reads in pieces, calling `check()` between them: a JobControl's check raises when the user
   stopped the job, so a long read of a slow disk or a network folder can be cancelled.

Errors are OSError subclasses with a message written for the user, so callers that already
handle "cannot be read" handle these too. Torch-free, Qt-free.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path

PIECE = 1 << 20  # bytes read between two cancel checks
MB = 1 << 20

# Size limits per kind of file, in bytes. Generous for what the app writes (a run.json is
# under 1 kB, a manifest a few kB, a recipe or lesson a few kB); weights and vectors are
# limited by memory instead (see memory_limit).
LIMITS = {
    "settings": 1 * MB,  # run.json
    "manifest": 16 * MB,  # checkpoints/*.json (optimizer hyper-parameters, tokenizer table)
    "recipe": 4 * MB,
    "lesson": 1 * MB,
    "help": 8 * MB,
    "tokenizer": 256 * MB,  # a BPE tokenizer's JSON
    "line": 16 * MB,  # one metrics or samples line
    "task data": 512 * MB,  # a file of pairs, labels or tags
}


def total_memory_bytes() -> int:
    """This computer's memory (the corpus limit and the read limits are shares of it)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        import psutil

        return int(psutil.virtual_memory().total)


def memory_limit(share: int = 2) -> int:
    """A limit for files read whole into memory (weights, vectors): a share of this computer's
    memory, so a link to /dev/zero or a mistaken 100 GB file is refused before it is read."""
    return max(256 * MB, total_memory_bytes() // share)


class NotRegularFileError(OSError):
    """A path that is not a regular file; `kind` says what it is ("a named pipe (FIFO)")."""

    def __init__(self, kind: str, path: Path | str | None = None) -> None:
        where = f"{path} is {kind}, not a regular file" if path is not None else kind
        super().__init__(where)
        self.kind = kind
        self.path = path


class FileTooLargeError(OSError):
    """A file larger than the limit of its kind; nothing of it was kept."""

    def __init__(self, path: Path | str, size: int | None, limit: int, what: str) -> None:
        seen = f"{size / MB:,.1f} MB" if size is not None else "larger than that"
        super().__init__(f"{path} is {seen}; a {what} larger than {limit / MB:,.0f} MB is not "
                         "read (it is probably not the file meant, or a device)")
        self.size, self.limit = size, limit


def kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def file_kind(path: Path | str) -> str:
    """What a path that is not a regular file is, in words."""
    return kind_of(os.stat(path).st_mode)


def check_regular(path: Path | str) -> os.stat_result:
    """The path's stat (links followed); NotRegularFileError for a FIFO, device, folder..."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(kind_of(info.st_mode), path)
    return info


def is_regular(path: Path | str) -> bool:
    try:
        check_regular(path)
    except OSError:
        return False
    return True


def open_regular(path: Path | str):
    """Open for reading in binary, refusing anything but a regular file (NotRegularFileError),
    without blocking on a FIFO; the returned file reads normally (blocking)."""
    check_regular(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    handle = os.open(path, flags)
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):  # swapped after the stat
            raise NotRegularFileError(kind_of(mode), path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def limit_of(kind: str) -> int:
    if kind in ("weights", "vectors"):
        return memory_limit()
    return LIMITS[kind]


def read_bytes(path: Path | str, kind: str, check: Callable[[], object] | None = None,
               limit: int | None = None) -> bytes:
    """The whole file, if it is a regular file no larger than the limit of `kind`.

    `check` is called between pieces (JobControl.check: a stop raises JobCancelledError)."""
    limit = limit_of(kind) if limit is None else limit
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise FileTooLargeError(path, size, limit, kind)
        return read_handle(handle, path, kind, limit, check, size)


def read_handle(handle, path: Path | str, kind: str, limit: int,
                check: Callable[[], object] | None = None, size_hint: int = 0) -> bytes:
    """Read an opened file to its end in pieces, at most `limit` bytes, checking between."""
    buffer = bytearray()
    if size_hint:
        buffer = bytearray(size_hint)  # one allocation for the usual, unchanging file
        view, filled = memoryview(buffer), 0
        while filled < size_hint:
            if check is not None:
                check()
            count = handle.readinto(view[filled:filled + PIECE])
            if not count:
                break
            filled += count
        view.release()
        del buffer[filled:]
    while True:  # what a growing file added since its stat
        if check is not None:
            check()
        piece = handle.read(PIECE)
        if not piece:
            return bytes(buffer)
        buffer += piece
        if len(buffer) > limit:
            raise FileTooLargeError(path, None, limit, kind)


def read_text(path: Path | str, kind: str, check: Callable[[], object] | None = None,
              limit: int | None = None) -> str:
    """The file as UTF-8 text (a byte-order mark dropped); UnicodeDecodeError as usual."""
    return read_bytes(path, kind, check, limit).decode("utf-8-sig")


def parse_json(data: bytes | str):
    """JSON as Python values; ValueError (never RecursionError) for one nested too deeply."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("it is nested too deeply to be read") from None


def parse_toml(text: str) -> dict:
    """TOML (a leading byte-order mark, as some editors save, dropped); TOMLDecodeError, a
    ValueError, for bad TOML and for tables or lists nested too deeply."""
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except RecursionError:
        raise tomllib.TOMLDecodeError("it is nested too deeply to be read") from None


def read_json(path: Path | str, kind: str, check: Callable[[], object] | None = None):
    """A bounded read parsed as JSON: OSError when unreadable, ValueError when not JSON."""
    return parse_json(read_bytes(path, kind, check))
