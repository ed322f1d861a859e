"""Giving freed memory back to the system, and saying how much the C heap holds.

glibc's malloc keeps memory that Python, torch and Qt free: a heap only shrinks from its top,
so one live block above a freed region keeps the whole region resident, and each thread's arena
keeps its own. The window runs every job and every probe on a fresh thread (thousands in an
hour of training), and the soak benchmark saw the process's resident size grow in steps of
15-66 MB that never came back. `malloc_trim(0)` walks every arena and returns each whole free
page to the system (Linux `MADV_DONTNEED`), wherever it lies; it costs a few milliseconds, so
the job thread calls it when a job ends, at most every `TRIM_EVERY_S`. Elsewhere than glibc
(macOS, Windows, musl) both functions do nothing.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time

TRIM_EVERY_S = 20.0
_lock = threading.Lock()
_last_trim = [float("-inf")]


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:  # by its glibc name: find_library would run ldconfig at start-up (the window imports this)
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 - glibc only: musl has none
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()


def trim_free_memory(force: bool = False) -> bool:
    """Return the C heap's free pages to the system. Skipped (False) when the last trim was
    less than `TRIM_EVERY_S` ago, unless `force`, and where there is no glibc."""
    if _LIBC is None:
        return False
    with _lock:
        now = time.monotonic()
        if not force and now - _last_trim[0] < TRIM_EVERY_S:
            return False
        _last_trim[0] = now
    _LIBC.malloc_trim(ctypes.c_size_t(0))  # ctypes releases the GIL for the call
    return True


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def heap_usage_mb() -> dict[str, float] | None:
    """The C heap over all arenas, in MB: `in_use` (allocated blocks), `free` (kept by malloc,
    not returned), `mapped` (large blocks mmap'ed on their own). None without glibc 2.33+."""
    if _LIBC is None or not hasattr(_LIBC, "mallinfo2"):
        return None
    _LIBC.mallinfo2.restype = _MallInfo2
    info = _LIBC.mallinfo2()
    return {"in_use": info.uordblks / 2**20, "free": info.fordblks / 2**20,
            "mapped": info.hblkhd / 2**20}
