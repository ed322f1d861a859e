"""Following a run folder that another process writes (a headless run, a torchrun job, a folder
synced from a server): a job that yields what the run adds, as it adds it.

`follow_run_steps` polls the folder every `poll_s` seconds, or at once when `wake` is set (the
window sets it from a file-system watcher; synced and network folders often give no events,
so the poll stays as the fallback). Each turn yields `RunGrew` with the new metrics and samples
(read by `run_tail.RunTail`, a partly written last line left for the next turn), then one
`CheckpointLoaded` when a newer checkpoint appeared. Everything is opened read-only: following,
and stopping the follow, never changes the run.

A checkpoint is read only when whole: its JSON manifest is written last (checkpoint_files.py),
it names its weights file and their SHA-256, and the loader checks it; a weights file that
does not match yet (a save or a sync still under way) is tried again when it changes.
Torch-free: the app passes the loader that builds a snapshot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from workbench.core.events import CheckpointLoaded, Event, Notice, RunGrew
from workbench.core.files import bounded
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.training.checkpoint_files import weights_path
from workbench.core.training.run_tail import RunTail
from workbench.core.training.runs import run_label, run_task

POLL_S = 1.0
KINDS = ("latest", "best")
PATIENCE_S = 30.0  # a checkpoint unreadable this long is reported (not just mid-save)

SnapshotLoader = Callable[[Path], object]


@dataclass
class _Seen:
    stamp: tuple = ()  # (mtime_ns, size) of the JSON and of the weights when last tried
    key: tuple = ()  # (step, weights hash) of the checkpoint that JSON describes
    failing_since: float = 0.0
    reported: bool = False


class CheckpointWatch:
    """Which checkpoints of a run are new since the last look, judged by their JSON."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.seen = {kind: _Seen() for kind in KINDS}
        self.loaded_key: tuple = ()

    def candidates(self) -> list[tuple[str, dict]]:
        """(kind, metadata) of checkpoints whose files changed since tried, newest step first."""
        found = []
        for kind in KINDS:
            stamp = _stamp(self.folder / f"{kind}.json", _named_weights(self.folder, kind))
            seen = self.seen[kind]
            if stamp is None or (stamp == seen.stamp and not self._retry_due(seen)):
                continue
            seen.stamp = stamp
            try:
                meta = bounded.read_json(self.folder / f"{kind}.json", "manifest")
                key = (int(meta["step"]), str(meta["weights_sha256"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # mid-sync or damaged: tried again when it changes
            if key != self.loaded_key:
                found.append((kind, meta))
        return sorted(found, key=lambda item: -int(item[1]["step"]))

    def loaded(self, meta: dict) -> None:
        self.loaded_key = (int(meta["step"]), str(meta["weights_sha256"]))
        for seen in self.seen.values():
            seen.failing_since, seen.reported = 0.0, False

    @staticmethod
    def _retry_due(seen: _Seen) -> bool:
        """An unchanged checkpoint that failed is tried once more after PATIENCE_S, so one
        that stays unreadable is reported rather than skipped in silence."""
        return (bool(seen.failing_since) and not seen.reported
                and time.monotonic() - seen.failing_since >= PATIENCE_S)

    def failed(self, kind: str) -> bool:
        """Note a failed read; True once it has failed for PATIENCE_S (report it then)."""
        seen = self.seen[kind]
        now = time.monotonic()
        seen.failing_since = seen.failing_since or now
        if seen.reported or now - seen.failing_since < PATIENCE_S:
            return False
        seen.reported = True
        return True


def _stamp(manifest: Path, weights: Path | None) -> tuple | None:
    """When the manifest or the weights it names change, the checkpoint is tried again (a
    sync tool may deliver the manifest before its weights)."""
    try:
        stamp = (manifest.stat().st_mtime_ns, manifest.stat().st_size)
    except OSError:
        return None
    try:
        return stamp + (weights.stat().st_mtime_ns, weights.stat().st_size) if weights else stamp
    except OSError:
        return stamp + (None,)


def _named_weights(folder: Path, kind: str) -> Path | None:
    """The weights file `<kind>.json` names (checkpoint_files.py), None when unreadable."""
    manifest = folder / f"{kind}.json"
    try:
        return weights_path(manifest, bounded.read_json(manifest, "manifest"))
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def check_run_folder(run_dir: Path) -> None:
    """Refuse what cannot be a run folder being written (a file, the runs root itself)."""
    if not run_dir.is_dir():
        raise UserFacingError(f"{run_dir} is not a folder. Choose the folder of one run (the "
                              "one that holds metrics.jsonl, or will once training starts).")
    markers = ("metrics.jsonl", "recipe.toml", "checkpoints")
    if any((run_dir / m).exists() for m in markers) or not any(run_dir.iterdir()):
        return
    runs_inside = [p.name for p in run_dir.iterdir() if (p / "metrics.jsonl").is_file()]
    hint = f" It holds runs, such as {runs_inside[-1]}: choose one of them." if runs_inside else ""
    raise UserFacingError(f"{run_dir} is not a run folder (no metrics.jsonl, recipe.toml or "
                          f"checkpoints).{hint}")


def follow_name(run_dir: Path) -> str:
    """The run's name: the one given in run.json or by its folder's name, else (a folder named
    with --out) its recipe's name with the folder's."""
    label = run_label(run_dir)
    if label != run_dir.name:
        return label
    try:
        name = bounded.parse_toml(bounded.read_text(run_dir / "recipe.toml", "recipe"))["name"]
    except (OSError, ValueError, KeyError):
        return label
    return f"{name} ({run_dir.name})" if str(name) != run_dir.name else label


def token_unit(run_dir: Path) -> str:
    """What the run's tokenizer counts, for the bits-per-character/token plot's title."""
    try:
        recipe = bounded.parse_toml(bounded.read_text(run_dir / "recipe.toml", "recipe"))
    except (OSError, ValueError):
        return ""
    kind = (recipe.get("tokenizer") or {}).get("kind", "")
    return "character" if kind == "char" else "token" if kind else ""


def follow_run_steps(run_dir: str | Path, control: JobControl, load_snapshot: SnapshotLoader,
                     wake: threading.Event | None = None, poll_s: float = POLL_S
                     ) -> Iterator[Event]:
    """Yield what another process adds to `run_dir` until the control is stopped."""
    run_dir = Path(run_dir).expanduser()
    check_run_folder(run_dir)
    wake = wake or threading.Event()
    tail = RunTail(run_dir)
    watch = CheckpointWatch(run_dir / "checkpoints")
    while not control.stop_requested:
        chunk = tail.read()
        if chunk:
            yield RunGrew(str(run_dir), follow_name(run_dir), tuple(chunk.events),
                          tuple(chunk.samples), chunk.skipped_lines, chunk.restarted,
                          run_task(run_dir), token_unit(run_dir))
        if chunk.more:
            continue  # a large file arrives piece by piece, without waiting
        yield from _new_checkpoint(run_dir, watch, load_snapshot)
        wake.wait(poll_s)
        wake.clear()


def _new_checkpoint(run_dir: Path, watch: CheckpointWatch, load_snapshot: SnapshotLoader
                    ) -> Iterator[Event]:
    """The newest readable checkpoint that changed, as one `CheckpointLoaded`."""
    for kind, meta in watch.candidates():
        try:
            snapshot = load_snapshot(watch.folder / f"{kind}.json")
        except UserFacingError as exc:
            if watch.failed(kind):
                yield Notice(f"The {kind} checkpoint of {run_dir.name} could not be read for "
                             f"{PATIENCE_S:.0f} s: {exc}")
            continue
        watch.loaded(meta)
        max_steps = int((meta.get("training") or {}).get("max_steps", 0) or 0)
        yield CheckpointLoaded(str(run_dir), kind, int(meta["step"]), max_steps, snapshot)
        return
