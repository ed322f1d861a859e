"""What data a run trained on: the size and SHA-256 of every data file, kept in its folder.

A resume used to continue a run on whatever its recipe's paths held now (a task data file
edited, replaced, or found relative to another folder) without a word. A run records
`data.json` beside its recipe when it starts:

```
{"files": {"/abs/path/pairs.tsv": {"size": 1234, "sha256": "..."}, ...}}
```

the corpus (a file, or every visible file of a corpus folder) and the task's data and test
files (`path`, `test_path` when the task reads a file; a built-in data set is part of the app).
A resume compares the files now with the record and refuses, naming each file that changed
(its old and new size, or that its content differs at the same size, or that it is gone or
new), unless asked to continue (`--allow-changed-data`); then the new identity is recorded.
A folder counts every visible file under it: a file the reader would skip may raise a false
alarm, never hide a change. Hidden names and more than MAX_FILES files are left out.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from workbench.core.jobs import UserFacingError

RECORD = "data.json"
MAX_FILES = 10_000
_PIECE = 1 << 20
_RECORD_LIMIT = 16 << 20  # bytes of data.json read back


def data_locations(recipe) -> list[Path]:
    """The files and folders `recipe` reads its data from (absolute paths)."""
    places = []
    task = recipe.task
    if recipe.corpus_path and getattr(task, "needs_corpus", True):
        places.append(recipe.corpus_location())
    reads_file = getattr(task, "dataset", getattr(task, "data", "file")) == "file"
    for name in ("path", "test_path"):
        value = getattr(task, name, "")
        if reads_file and isinstance(value, str) and value.strip():
            places.append(Path(value).expanduser())
    return [Path(os.path.abspath(p)) for p in places]


def _files(place: Path) -> list[Path]:
    if not place.is_dir():
        return [place]
    found = []
    for root, dirs, names in os.walk(place):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
        if len(found) >= MAX_FILES:
            break
    return found[:MAX_FILES]


def identity(path: Path, control=None) -> dict:
    """{'size', 'sha256'} of a regular file; {'missing': True} when it is gone or not one."""
    try:
        if not path.is_file():  # a FIFO or a device is no data file, and reading it may hang
            return {"missing": True}
        digest, size = hashlib.sha256(), 0
        with open(path, "rb") as handle:
            while piece := handle.read(_PIECE):
                digest.update(piece)
                size += len(piece)
                if control is not None:
                    control.check()
        return {"size": size, "sha256": digest.hexdigest()}
    except OSError:
        return {"missing": True}


def fingerprint(recipe, control=None) -> dict[str, dict]:
    """Every data file of `recipe` with its identity."""
    return {str(f): identity(f, control) for place in data_locations(recipe)
            for f in _files(place)}


def write_record(run_dir: Path, files: dict[str, dict]) -> None:
    from workbench.core.training.checkpoint_files import atomic_write

    atomic_write(Path(run_dir) / RECORD, json.dumps({"files": files}, indent=1).encode("utf-8"))


def read_record(run_dir: Path) -> dict[str, dict] | None:
    """The recorded files, or None for a run recorded before this existed (or damaged)."""
    path = Path(run_dir) / RECORD
    try:
        if not path.is_file() or path.stat().st_size > _RECORD_LIMIT:
            return None
        files = json.loads(path.read_bytes()).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    return files if isinstance(files, dict) else None


def changes(recorded: dict[str, dict], now: dict[str, dict]) -> list[str]:
    """Each difference in words, one per file."""
    said = []
    for name in sorted(set(recorded) | set(now)):
        old, new = recorded.get(name), now.get(name)
        if not isinstance(old, dict):
            said.append(f"{name} is new")
        elif new is None or new.get("missing"):
            if not old.get("missing"):
                said.append(f"{name} is gone (was {old.get('size', '?'):,} bytes)"
                            if isinstance(old.get("size"), int) else f"{name} is gone")
        elif old.get("missing"):
            said.append(f"{name} appeared")
        elif old.get("size") != new.get("size"):
            said.append(f"{name} was {_bytes(old.get('size'))}, now {_bytes(new['size'])}")
        elif old.get("sha256") != new.get("sha256"):
            said.append(f"{name} has the same size ({_bytes(new['size'])}) but other content "
                        f"(sha256 {str(old.get('sha256'))[:12]}… now {new['sha256'][:12]}…)")
    return said


def _bytes(value) -> str:
    return f"{value:,} bytes" if isinstance(value, int) else "of unknown size"


def check_unchanged(run_dir: Path, recipe, allow_changed: bool, control=None) -> str:
    """Compare the run's data with its record before a resume. Returns a note to show ('' when
    nothing changed or the run has no record); `UserFacingError` naming what changed unless
    `allow_changed`, in which case the new identities are recorded."""
    recorded = read_record(run_dir)
    if recorded is None:
        return ""
    now = fingerprint(recipe, control)
    said = changes(recorded, now)
    if not said:
        return ""
    listing = "; ".join(said[:5]) + (f"; and {len(said) - 5} more" if len(said) > 5 else "")
    if not allow_changed:
        raise UserFacingError(
            f"The data of {Path(run_dir).name} changed since it was trained: {listing}. "
            "Resuming would continue the run on other data than its curve so far. Put the "
            "data back, start a new run, or resume anyway with --allow-changed-data.")
    write_record(run_dir, now)
    return (f"The data changed since this run was trained ({listing}); it continues on the "
            "new data, as asked.")
