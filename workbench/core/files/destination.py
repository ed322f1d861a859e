"""Where a long job's result goes: checked before the job starts, and kept if the write
still fails.

`workbench vectors --out` pointed at a folder, /dev/full or a missing folder trained for
minutes and then printed a traceback: the vectors were lost. `check_destination` refuses such
a path at once (a folder, a device or pipe, a missing or read-only folder), by creating and
removing a small file beside it, the one test that also sees a read-only disk.
`write_kept` writes through a temporary file beside the destination (a failed write never
leaves a cut-off file in place of the user's previous one) and, when the write fails
anyway (the disk filled meanwhile), writes to a fallback folder and says where.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError


def check_destination(path: Path, what: str) -> Path:
    """`path` (made absolute) when a file can be written there; `UserFacingError` saying why
    not and what to give instead."""
    path = Path(path).expanduser().absolute()
    if path.is_dir():
        raise UserFacingError(f"{path} is a folder: give a file name for the {what} (for "
                              f"example {path / ('name' + (path.suffix or '.txt'))}).")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UserFacingError(f"The {what} cannot be written to {path} "
                              f"({exc.strerror or exc}). Give another path.") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UserFacingError(f"{path} is {bounded.kind_of(info.st_mode)}, not a file: the "
                              f"{what} cannot be written there. Give a file name.")
    folder = path.parent
    if not folder.is_dir():
        raise UserFacingError(f"The folder {folder} does not exist, so the {what} cannot be "
                              f"written to {path}. Create the folder or give another path.")
    try:  # a read-only disk, a folder without write permission, a full disk's metadata
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".workbench-probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise UserFacingError(f"The folder {folder} cannot be written ({exc.strerror or exc}),"
                              f" so the {what} cannot be saved to {path}. Give a path in a "
                              "folder you can write to.") from None
    if info is not None and not os.access(path, os.W_OK):
        raise UserFacingError(f"{path} cannot be overwritten (permission denied). Give another "
                              f"path for the {what}.")
    return path


def fallback_folder() -> Path:
    """Where a result goes when its destination failed: the user's data folder (a file in
    the temporary folder can vanish at the next reboot)."""
    try:
        import platformdirs

        return Path(platformdirs.user_data_dir("sequence-workbench")) / "kept"
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return Path(tempfile.gettempdir()) / "sequence-workbench-kept"


def write_kept(write: Callable[[Path], object], path: Path, what: str,
               fallbacks: list[Path] | None = None) -> tuple[Path, str]:
    """Write with `write(target)` to `path` through a temporary file beside it; when that
    fails, to a new file of the same name in the first fallback folder that takes it.
    Returns (the path written, a note: '' when it is `path`); `UserFacingError` only when
    no place took it."""
    try:
        _write_replacing(write, path)
        return path, ""
    except OSError as exc:
        first = f"{path} could not be written ({exc.strerror or exc})"
    for folder in fallbacks if fallbacks is not None else [fallback_folder(),
                                                          Path(tempfile.gettempdir())]:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=folder, prefix=f"{path.stem}-",
                                            suffix=path.suffix or ".txt")
            os.close(handle)
        except OSError:
            continue
        try:
            _write_replacing(write, Path(name))
        except OSError:
            Path(name).unlink(missing_ok=True)
            continue
        return Path(name), f"{first}; the {what} went to {name} instead."
    raise UserFacingError(f"{first}, and no fallback folder could take the {what}. Free some "
                          "disk space and run again.")


def _write_replacing(write: Callable[[Path], object], path: Path) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        write(Path(temp))
        try:  # mkstemp's file is the owner's alone: keep the replaced file's mode, or 0644
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o644
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
