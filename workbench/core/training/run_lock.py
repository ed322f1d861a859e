"""One writer per run folder: a lock that training, resuming and claiming `--out` all take.

Without it two `train --out d` runs, or two `--resume`s of one run, wrote into one folder: one
died on the other's half-written temporary file and `metrics.jsonl` ended with the same steps
twice.

Why an advisory lock held by the kernel (`fcntl.flock`; `msvcrt.locking` on Windows) rather
than a file made with O_EXCL plus a pid check: the kernel drops the lock when its process
dies, however it dies (SIGKILL, the OOM killer, a power-cut of a container), so a killed run
never leaves a lock the next one has to judge. A pid check can be fooled: the pid of a dead
run may have been reused by another program, and a pid written on another host of a shared
disk cannot be checked at all. The lock file stays in the folder (deleting it while another
process waits on it would let two hold "the" lock); it also holds who locked it (pid, host,
since when, the command), rewritten by each new holder, so the second process is told who
holds the folder. A lock left by a killed process is taken over by simply locking: the kernel
released it, and the stale holder text is overwritten.

Within one process the lock is re-entrant (a count per folder): the CLI takes it when it
claims `--out` and the trainer takes it again. Under `--nproc` the launcher holds the folder
and names itself in WORKBENCH_RUN_LOCK_HOLDER; rank 0, its child, writes on its behalf.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.core.jobs import UserFacingError

LOCK_NAME = ".workbench-lock"
HOLDER_ENV = "WORKBENCH_RUN_LOCK_HOLDER"  # pid of a launcher that holds the lock for its ranks
_INFO_LIMIT = 4096  # bytes of holder text read back (the file is ours, but may be damaged)
_WINDOWS_BYTE = 1 << 20  # msvcrt locks a byte range: one byte past the holder text

_held: dict[str, tuple[int, int]] = {}  # resolved folder -> (fd, count) in this process


@dataclass
class RunLock:
    """A held lock on one run folder; `release` once per `acquire`."""

    folder: Path
    delegated: bool = False  # held by the launcher for this rank, not by this process

    def release(self) -> None:
        if self.delegated:
            return
        key = _key(self.folder)
        fd, count = _held.get(key, (-1, 0))
        if count > 1:
            _held[key] = (fd, count - 1)
        elif count == 1:
            del _held[key]
            _unlock(fd)
            os.close(fd)


def acquire(folder: Path) -> RunLock:
    """Lock `folder` for this process, or `UserFacingError` naming the process that holds it."""
    folder = Path(folder)
    key = _key(folder)
    if key in _held:
        fd, count = _held[key]
        _held[key] = (fd, count + 1)
        return RunLock(folder)
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        from workbench.core.jobs import user_message

        raise UserFacingError(user_message(exc, f"Locking the run folder {folder}")) from None
    if not _try_lock(fd):
        os.close(fd)
        holder = read_holder(folder)
        if _delegated_to_us(holder):
            return RunLock(folder, delegated=True)
        raise UserFacingError(held_message(folder, holder))
    _write_holder(fd)
    _held[key] = (fd, 1)
    return RunLock(folder)


def raise_if_held(folder: Path) -> None:
    """Refuse early (before loading data) when another process holds `folder`."""
    acquire(folder).release()


def read_holder(folder: Path) -> dict:
    """Who holds (or last held) the lock: {'pid', 'host', 'since', 'command'}; {} if unknown."""
    try:
        with open(Path(folder) / LOCK_NAME, "rb") as handle:
            data = json.loads(handle.read(_INFO_LIMIT).rstrip(b"\0 \n"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def held_message(folder: Path, holder: dict) -> str:
    if holder.get("pid"):
        who = (f"process {holder['pid']} on {holder.get('host', '?')} (since "
               f"{holder.get('since', '?')}: {holder.get('command', '?')})")
    else:
        who = "another process that is just starting"
    return (f"The run folder {folder} is in use by {who}. Two runs writing one folder would "
            "mix their checkpoints and curves, so this one did not start. Wait for it to "
            "finish (or stop it), or choose another folder.")


def _delegated_to_us(holder: dict) -> bool:
    """True in a rank started by `--nproc` whose launcher (our parent) holds the folder."""
    named = os.environ.get(HOLDER_ENV)
    return (bool(named) and str(holder.get("pid")) == named == str(os.getppid())
            and holder.get("host") == socket.gethostname())


def _write_holder(fd: int) -> None:
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "since": time.strftime("%Y-%m-%d %H:%M:%S"),
                       "command": " ".join(sys.argv)[:300]}).encode("utf-8")
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, text + b"\n")
    except OSError:
        pass  # the lock holds without its description; a second process says "unknown"


def _key(folder: Path) -> str:
    return str(Path(folder).resolve())


if os.name == "posix":
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        except OSError:  # a file system without locks (some network mounts): say so
            raise UserFacingError("The run folder's file system does not support locks, so "
                                  "two runs could write it at once. Choose a local folder."
                                  ) from None

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
else:  # Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
