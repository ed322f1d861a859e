"""Run directories: where every training run keeps its recipe, curves, samples and checkpoints.

```
<runs root>/<run name>/
  recipe.toml      what was trained (see recipe.py)
  metrics.jsonl    one event per line: {"event": "step"|"eval"|"divergence"|..., ...fields}
  samples.jsonl    {"step": N, "text": "..."} per sample
  run.json         display name and colour the user chose (the GUI writes it)
  checkpoints/     latest.* and best.* (see checkpoints.py)
```

The root is `platformdirs.user_data_dir("sequence-workbench")/runs`, or `$WORKBENCH_RUNS_DIR`.
This module is torch-free: the GUI reads runs (also ones written headless elsewhere) through it.
"""

from __future__ import annotations

import json
import os
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.config.tasks import DEFAULT_TASK
from workbench.core.events import (
    Event,
    SampleGenerated,
)
from workbench.core.files import bounded
from workbench.core.files.atomic import atomic_output
from workbench.core.jobs import UserFacingError
from workbench.core.training.run_lines import (
    event_to_json,
    parse_event_line,
    parse_sample_line,
)

RUNS_ENV = "WORKBENCH_RUNS_DIR"


def runs_root() -> Path:
    override = os.environ.get(RUNS_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("sequence-workbench")) / "runs"


def new_run_dir(label: str, root: Path | None = None) -> Path:
    """A fresh folder named `<date>-<time>-<label>` (a suffix keeps names unique)."""
    root = root or runs_root()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40] or "run"
    for n in range(1000):
        path = root / (f"{stamp}-{safe}" + (f"-{n}" if n else ""))
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as exc:  # a read-only or full disk: said in words, not a traceback
            from workbench.core.jobs import user_message

            raise UserFacingError(user_message(exc, f"Creating a run folder in {root}")
                                  ) from None
        from workbench.core.training.run_folder import mark

        mark(path)  # ours: the trainer writes only into marked folders (run_folder.py)
        return path
    raise UserFacingError(f"Could not create a run folder in {root}.")


class RunLog:
    """Appends events to metrics.jsonl and samples to samples.jsonl, flushed at each line so
    another process (or the GUI) reading the run sees them."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._metrics = open(run_dir / "metrics.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self._samples = open(run_dir / "samples.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def write(self, event: Event) -> None:
        if isinstance(event, SampleGenerated):
            self._samples.write(json.dumps({"step": event.step, "text": event.text}) + "\n")
            self._samples.flush()
            return
        line = event_to_json(event)
        if line is not None:
            self._metrics.write(line + "\n")
            self._metrics.flush()

    def close(self) -> None:
        self._metrics.close()
        self._samples.close()


class SilentLog:
    """The run log of a rank that does not write (under torchrun only rank 0 writes)."""

    def write(self, event: Event) -> None:
        pass

    def close(self) -> None:
        pass


def truncate_after(run_dir: Path, step: int) -> None:
    """Drop logged lines past `step` (a resume from a checkpoint at `step` rewrites them), so
    the resumed curve joins the saved one without a doubled stretch.

    The kept lines go to a new file that then replaces the old one in one rename, so a crash
    midway leaves the old file whole. Lines are handled as bytes: a damaged line (a cut-off
    write, a stray non-UTF-8 byte) is kept as it is rather than failing the resume."""
    for name in ("metrics.jsonl", "samples.jsonl"):
        path = run_dir / name
        for stale in run_dir.glob(f".{name}.*.tmp"):  # left by a rewrite that was killed
            if re.fullmatch(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp", stale.name):
                stale.unlink(missing_ok=True)  # mkstemp's name; anything else is not ours
        if not path.is_file():
            continue
        with bounded.open_regular(path) as source, atomic_output(path) as out:
            for line in source:
                if line.strip() and _line_step(line) <= step:
                    out.write(line if line.endswith(b"\n") else line + b"\n")


def _line_step(line: bytes) -> float:
    """The step a logged line belongs to (0 for a line that cannot be read)."""
    try:
        value = json.loads(line).get("step", 0)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    except (ValueError, AttributeError):
        return 0


@dataclass
class RunRecord:
    """A run read back from disk: its events in order, samples and display settings."""

    path: Path
    name: str
    events: list[Event] = field(default_factory=list)
    samples: list[SampleGenerated] = field(default_factory=list)
    recipe_text: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    has_checkpoint: bool = False
    skipped_lines: int = 0
    task: str = DEFAULT_TASK  # the recipe's [task] name (its curves are the ones to plot)
    grad_clip: float = 0.0  # the recipe's clipping threshold (0: none, or no recipe)


def read_run(path: str | Path, check=None) -> RunRecord:
    """Read a run folder; damaged lines (a run killed mid-write) are counted and skipped.
    `check` (JobControl.check) is called between pieces, so a long read can be stopped."""
    path = Path(path)
    if not (path / "metrics.jsonl").is_file():
        raise UserFacingError(f"{path} is not a run folder (it has no metrics.jsonl). Choose "
                              "a folder made by a training run.")
    settings = read_settings(path)
    # the run list's own label: two runs of one recipe differ by their start time, which a
    # bare folder name puts first, where an elided list cuts it to the same "20261127-2…"
    record = RunRecord(path, run_label(path), settings=settings)
    from workbench.core.training.run_tail import RunTail

    tail = RunTail(path)  # line by line as bytes: a stray non-UTF-8 byte costs one line
    while True:
        if check is not None:
            check()
        chunk = tail.read()
        record.events.extend(chunk.events)
        record.samples.extend(chunk.samples)
        record.skipped_lines += chunk.skipped_lines
        if not chunk.more:
            break
    for last, parse, into in ((tail.metrics.rest(), parse_event_line, record.events),
                              (tail.samples.rest(), parse_sample_line, record.samples)):
        if last.strip():  # a last line without its newline: whole, or cut off by a kill
            try:
                into.append(parse(last))
            except ValueError:
                record.skipped_lines += 1
    recipe = path / "recipe.toml"
    try:
        record.recipe_text = bounded.read_text(recipe, "recipe") if recipe.exists() else ""
    except (OSError, UnicodeDecodeError):
        record.recipe_text = ""  # the curves still open; resuming names the recipe's problem
    record.task = recipe_task_name(record.recipe_text)
    record.grad_clip = recipe_grad_clip(record.recipe_text)
    record.has_checkpoint = (path / "checkpoints" / "latest.json").is_file()
    return record


def run_task(run_dir: Path) -> str:
    """The task of a run folder, from its recipe (a language model when it has none yet)."""
    try:
        return recipe_task_name(bounded.read_text(Path(run_dir) / "recipe.toml", "recipe"))
    except (OSError, UnicodeDecodeError):
        return DEFAULT_TASK


def recipe_task_name(recipe_text: str) -> str:
    """The task a recipe names in its [task] table; a recipe without one (every recipe made
    before tasks existed) trains a language model."""
    try:
        table = bounded.parse_toml(recipe_text).get("task", {})
    except tomllib.TOMLDecodeError:
        return DEFAULT_TASK
    return str(table.get("name", DEFAULT_TASK)) if isinstance(table, dict) else DEFAULT_TASK


def recipe_grad_clip(recipe_text: str) -> float:
    """The clipping threshold a recipe trains with: its [training] grad_clip, else the
    default's; 0 for no recipe or a damaged one (no line is drawn)."""
    from workbench.core.config.training import TrainingConfig

    try:
        table = bounded.parse_toml(recipe_text).get("training", {}) if recipe_text else None
    except tomllib.TOMLDecodeError:
        return 0.0
    if not isinstance(table, dict):
        return 0.0
    value = table.get("grad_clip", TrainingConfig().grad_clip)
    return float(value) if isinstance(value, (int, float)) and value > 0 else 0.0


SETTING_TYPES = {"name": str, "colour": str}


def read_settings(path: Path) -> dict[str, Any]:
    """The display settings in run.json; a value of the wrong type (a number for a name) is
    left out rather than passed on to the window."""
    try:
        data = bounded.read_json(path / "run.json", "settings")
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, SETTING_TYPES.get(k, object))}


def write_settings(path: Path, **changes: Any) -> None:
    """Merge display settings (name, colour) into run.json (written whole or not at all);
    `UserFacingError` when the folder cannot be written."""
    from workbench.core.training.checkpoint_files import atomic_write

    settings = {**read_settings(Path(path)), **changes}
    try:
        atomic_write(Path(path) / "run.json", json.dumps(settings, indent=1).encode("utf-8"))
    except OSError as exc:
        raise UserFacingError(f"The run's name and colour could not be saved in {path} "
                              f"({exc.strerror or exc}); they apply until the window closes. "
                              "Copy the run to a folder you can write to keep them.") from None


def run_label(path: Path) -> str:
    """The name a run list shows: the one the user gave it, else its recipe name and start
    time read from the folder name (`20261122-233239-char-lstm` -> `char-lstm 11-22 23:32`)."""
    name = read_settings(path).get("name")
    if name:
        return str(name)
    match = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})\d{2}-(.+)", path.name)
    if match is None:
        return path.name
    _, month, day, hour, minute, label = match.groups()
    return f"{label} {month}-{day} {hour}:{minute}"


def list_runs(root: Path | None = None) -> list[Path]:
    root = root or runs_root()
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "metrics.jsonl").is_file())


def describe_run(path: Path) -> str:
    """What the run in `path` trains, from its recipe ('' when it has none or it is damaged)."""
    from workbench.core.training.recipe import describe, load_recipe

    recipe_path = Path(path) / "recipe.toml"
    if not recipe_path.is_file():
        return ""
    try:
        return describe(load_recipe(recipe_path))
    except (UserFacingError, AttributeError, TypeError, ValueError):
        return ""
