"""How checkpoint files reach the disk so that no crash can destroy a good checkpoint.

The layout of a run's `checkpoints/` folder:

```
latest.json                               the manifest of the latest checkpoint (written last)
best.json                                 the manifest of the best one
latest-000500-1a2b3c4d5e6f.safetensors    weights, named by kind, step and hash: never overwritten
step-000400.json, step-000300.json        the two previous 'latest' manifests (resume fallbacks)
```

A save writes the weights under a new name, then (for 'latest') keeps the previous manifest as
`step-<its step>.json`, then replaces `<kind>.json` in one rename: that rename is the commit.
Until it happens the old manifest names the old weights, which are still on disk; only after
it are files no manifest names removed. So a kill at any point leaves the previous `latest`
and `best` loadable (tests/core/test_checkpoint_crash_points.py kills a child process before
every file operation of a save to check it). Manifests from before this layout name no
weights file and mean `<kind>.safetensors` beside them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from workbench.core.files import bounded
from workbench.core.files.atomic import atomic_write

KEEP_OLDER = 2  # previous 'latest' manifests kept as fallbacks
_WEIGHTS_NAME = re.compile(r"[A-Za-z0-9_.-]+\.safetensors")
_OLDER_NAME = re.compile(r"step-(\d+)\.json")
# The only names pruning may delete: what `commit` writes (and the layout before it wrote
# hashed names), and the temporaries `atomic_write` makes of them (mkstemp adds 8 characters).
# A user's `mine.safetensors` or `.notes.tmp` beside them is not ours and stays.
_OWN_WEIGHTS = re.compile(r"(latest|best)(-\d{6,}-[0-9a-f]{12})?\.safetensors")
_OWN_TEMPORARY = re.compile(
    r"\.((latest|best)(-\d{6,}-[0-9a-f]{12})?\.safetensors|(latest|best|step-\d+)\.json)"
    r"\.[a-z0-9_]{8}\.tmp")


def weights_name(kind: str, step: int, sha256: str) -> str:
    return f"{kind}-{step:06d}-{sha256[:12]}.safetensors"


def weights_path(manifest: Path, meta: dict) -> Path:
    """The weights file a manifest names; ValueError for a name that leaves the folder."""
    name = meta.get("weights", f"{manifest.stem}.safetensors")
    if not isinstance(name, str) or not _WEIGHTS_NAME.fullmatch(name) or name.startswith("."):
        raise ValueError(f"it names an unusable weights file {name!r}")
    return manifest.parent / name


def _read_manifest(path: Path) -> dict | None:
    try:
        meta = bounded.read_json(path, "manifest")
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def older_manifests(folder: Path) -> list[Path]:
    """The kept previous 'latest' manifests, newest step first."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [(int(m.group(1)), folder / n) for n in names if (m := _OLDER_NAME.fullmatch(n))]
    return [path for _, path in sorted(found, reverse=True)]


def commit(folder: Path, kind: str, weights: bytes, meta: dict) -> Path:
    """Write one checkpoint: its weights under a fresh name, then its manifest; returns the
    manifest's path. `meta` must hold `step` and `weights_sha256`."""
    folder.mkdir(parents=True, exist_ok=True)
    name = weights_name(kind, int(meta["step"]), meta["weights_sha256"])
    atomic_write(folder / name, weights)
    manifest = folder / f"{kind}.json"
    previous = _read_manifest(manifest) if kind == "latest" else None
    if previous is not None and previous.get("step") != meta["step"]:
        try:  # keep it as a fallback, naming its weights explicitly (old layout: implicit)
            kept = {**previous, "weights": weights_path(manifest, previous).name}
            atomic_write(folder / f"step-{int(previous['step']):06d}.json",
                         json.dumps(kept, indent=1).encode("utf-8"))
        except (ValueError, TypeError, KeyError):
            pass  # a damaged previous manifest is no fallback
    atomic_write(manifest, json.dumps({**meta, "weights": name}, indent=1).encode("utf-8"))
    prune(folder)
    return manifest


def prune(folder: Path) -> None:
    """Remove what no kept manifest names: superseded weights, older manifests beyond
    KEEP_OLDER, and temporary files a crash left behind; only files named as this module
    names its own (see _OWN_WEIGHTS), never another file in the folder."""
    older = older_manifests(folder)
    for stale in older[KEEP_OLDER:]:
        stale.unlink(missing_ok=True)
    named = set()
    for manifest in [folder / "latest.json", folder / "best.json", *older[:KEEP_OLDER]]:
        meta = _read_manifest(manifest)
        if meta is not None:
            try:
                named.add(weights_path(manifest, meta).name)
            except ValueError:
                continue
    for name in os.listdir(folder):
        if (_OWN_WEIGHTS.fullmatch(name) and name not in named) or _OWN_TEMPORARY.fullmatch(name):
            (folder / name).unlink(missing_ok=True)


def remove_stale_temporaries(folder: Path) -> int:
    """Delete the temporary files a killed save left in `folder` (only names a save makes);
    returns how many. Call it only while holding the run folder's lock (run_lock.py): another
    process's save in progress has such files too."""
    try:
        names = [n for n in os.listdir(folder) if _OWN_TEMPORARY.fullmatch(n)]
    except OSError:
        return 0
    for name in names:
        (folder / name).unlink(missing_ok=True)
    return len(names)
