"""Which folders a run may write in, and which of their files it may replace or delete.

`train --out d` used to write into whatever `d` held: a user's `checkpoints/mine.safetensors`
and any `.*.tmp` were deleted by the checkpoint pruning, `recipe.toml` and `best.json`
overwritten, and `--out .` beside one's own recipe replaced it. Now:

- A run folder is **marked**: the app writes `.workbench-run` (its run id, when it was made)
  into a folder it created or found empty. Only a marked folder is written by a run.
- `--out DIR` (and a run folder handed to the trainer) must be new, empty, or a marked run
  that never got as far as a checkpoint (a run stopped while it loaded its data: there is
  nothing to resume, and starting the recipe there again is what the user wants; its own
  metrics and samples files are cleared so the new curve is not appended to the old).
  A folder holding anything else is **refused** with the names of what it holds; nothing in
  it is touched. Refusing rather than making a sub-folder: a script that said `--out d`
  expects the run in `d`, and a sub-folder it did not ask for would be found only by reading
  the printed path.
- A run folder written by an older version (no marker, but `recipe.toml` and `metrics.jsonl`)
  is marked when the user resumes it: they named it as a run.
- Deleting: only files whose names the app's own writers produce (checkpoint_files.py and
  runs.truncate_after match exact patterns: `latest-000020-<12 hex>.safetensors`,
  `step-000400.json`, `.<own name>.<8 chars>.tmp`), so a user's file beside them survives.

Every claim takes the folder's lock (run_lock.py) first and checks again under it, so two
processes claiming one folder cannot both win.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

from workbench.core.jobs import UserFacingError, user_message
from workbench.core.training import run_lock

MARKER = ".workbench-run"
_OURS_IN_EMPTY = {MARKER, run_lock.LOCK_NAME}  # what an 'empty' folder may hold already


def is_marked(folder: Path) -> bool:
    return (Path(folder) / MARKER).is_file()


def run_id(folder: Path) -> str:
    """The id in a folder's marker ('' when unmarked or unreadable)."""
    try:
        with open(Path(folder) / MARKER, "rb") as handle:
            data = json.loads(handle.read(4096))
        return str(data.get("run_id", "")) if isinstance(data, dict) else ""
    except (OSError, ValueError):
        return ""


def mark(folder: Path) -> str:
    """Write the marker (never over an existing one); returns the run id."""
    ident = uuid.uuid4().hex
    text = json.dumps({"app": "sequence-workbench", "run_id": ident,
                       "created": time.strftime("%Y-%m-%d %H:%M:%S")})
    fd = os.open(Path(folder) / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    return ident


def has_checkpoint(folder: Path) -> bool:
    """Whether a run in `folder` saved a checkpoint (so it can be resumed)."""
    return (Path(folder) / "checkpoints" / "latest.json").exists()


def claim(folder: Path) -> run_lock.RunLock:
    """Make `folder` this run's: create or adopt it as described above, locked; returns the
    lock (the caller releases it when the run ends). `UserFacingError` when it is not ours."""
    folder = Path(folder).expanduser()
    doing = f"Creating the run folder {folder}"
    try:
        if folder.exists() and not folder.is_dir():
            raise UserFacingError(f"{folder} is a file, not a folder. Give --out a new folder.")
        folder.mkdir(parents=True, exist_ok=True)
        _check_claimable(folder)  # before the lock file is written into it
        lock = run_lock.acquire(folder)
        try:
            _check_claimable(folder)
            if is_marked(folder):  # our run that saved no checkpoint: its log starts again
                for name in ("metrics.jsonl", "samples.jsonl"):
                    (folder / name).unlink(missing_ok=True)
            else:
                mark(folder)
        except BaseException:
            lock.release()
            raise
    except FileExistsError:  # another process marked it between our two looks
        raise UserFacingError(f"Another process has just started a run in {folder}. Choose "
                              "another folder.") from None
    except OSError as exc:
        raise UserFacingError(user_message(exc, doing) + " Nothing was trained.") from None
    return lock


def _check_claimable(folder: Path) -> None:
    if has_checkpoint(folder) or (not is_marked(folder)
                                  and (folder / "metrics.jsonl").exists()):
        raise UserFacingError(f"{folder} already holds a run. Choose a new folder, or use "
                              f"--resume {folder} to continue it.")
    if is_marked(folder):
        return  # our own run that stopped before its first checkpoint: start it again
    names = sorted(set(os.listdir(folder)) - _OURS_IN_EMPTY)
    if names:
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise UserFacingError(
            f"{folder} is not empty and is not a run folder of this app (it holds {shown}). "
            "A run writes only into a new or empty folder, so that it can never overwrite or "
            f"delete your files; nothing in {folder} was changed. Give a new folder, e.g. "
            f"--out {folder / 'run-1'}.")


def open_for_resume(folder: Path) -> run_lock.RunLock:
    """Lock a run folder to continue it; an unmarked run of an older version is marked."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserFacingError(f"{folder} is not a folder, so there is no run to resume. Give "
                              "the run folder that `workbench train` printed.")
    legacy = (folder / "recipe.toml").is_file() and (folder / "metrics.jsonl").is_file()
    if not (is_marked(folder) or legacy):  # checked before the lock file is written into it
        raise UserFacingError(
            f"{folder} is not a run folder of this app (it has no recipe.toml and "
            "metrics.jsonl), so it cannot be resumed; nothing in it was changed.")
    lock = run_lock.acquire(folder)
    try:
        if not has_checkpoint(folder):
            raise UserFacingError(nothing_to_resume(folder))
        if not is_marked(folder):
            try:
                mark(folder)
            except FileExistsError:
                pass
            except OSError as exc:
                raise UserFacingError(user_message(exc, f"Resuming {folder}")) from None
    except BaseException:
        lock.release()
        raise
    return lock


def nothing_to_resume(folder: Path) -> str:
    """What to say when a run folder has no checkpoint to continue from."""
    return (f"{folder} has no checkpoint: its run stopped before it saved one, so there is "
            f"nothing to resume. Start the recipe again; `--out {folder}` may name this "
            "same folder.")
