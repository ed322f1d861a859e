"""From a recipe to training: prepare the task's data (load the corpus, check its hash and
tokenize it, for a language model; generate or read examples for other tasks), then train.

The headless CLI and the GUI's "Open recipe"/"Resume run" share these steps, so a recipe gives
the same run wherever it starts. A resumed run re-uses the vocabulary saved in its checkpoint,
so its token ids are exactly those it was trained on.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Generator, Iterator
from pathlib import Path

from workbench.core.events import Event, Notice, RunStarted
from workbench.core.files import bounded
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.training import data_fingerprint
from workbench.core.training.recipe import Recipe, load_recipe, recipe_to_toml, run_name
from workbench.core.training.setup import device_available, resolve_device
from workbench.core.training_loop.trainer import TrainRequest, train_steps


def task_data_steps(recipe: Recipe, control: JobControl, vocabulary: dict | None = None
                    ) -> Generator[Event, None, object]:
    """The data of the recipe's task (what `Task.examples` returns)."""
    from workbench.core.tasks import task_class

    return (yield from task_class(recipe.task.name).examples(recipe.task, recipe, control,
                                                             vocabulary))


def recipe_train_steps(recipe: Recipe, control: JobControl, run_dir: Path | None = None,
                       hooks=None, gui: bool = True, distributed=None) -> Iterator[Event]:
    """Train a recipe into a new run folder (or `run_dir`); `gui` False for a headless run;
    `distributed` (a TorchrunEnv) when this process is one rank of a torchrun job."""
    files = data_fingerprint.fingerprint(recipe, control)  # what this run reads, recorded
    data = yield from task_data_steps(recipe, control)
    request = TrainRequest(data, recipe.model, recipe.training, run_dir=run_dir,
                           run_name=run_name(recipe), recipe_toml=recipe_to_toml(recipe),
                           hooks=hooks, gui=gui, task=recipe.task, distributed=distributed)
    yield from _recording_data(train_steps(request, control), files, distributed)


def _recording_data(events: Iterator[Event], files: dict, distributed) -> Iterator[Event]:
    """The events, with `data.json` written into the run folder once the trainer owns it
    (RunStarted comes after it claimed and locked the folder, before the first step)."""
    for event in events:
        if isinstance(event, RunStarted) and (distributed is None or distributed.is_writer):
            data_fingerprint.write_record(Path(event.run_dir), files)
        yield event


def resume_steps(run_dir: str | Path, control: JobControl, max_steps: int | None = None,
                 hooks=None, extend_to: int | None = None, threads: int | None = None,
                 gui: bool = True, distributed=None, device: str | None = None,
                 allow_changed_data: bool = False) -> Iterator[Event]:
    """Continue a run from its latest checkpoint: to `max_steps` if given, else to its own
    step count, or, when it already got there, to `extend_to` (the GUI's Steps box).
    `threads` and `device` override the recipe's; `gui` False for a headless run. A run whose
    data files changed since it was recorded is refused unless `allow_changed_data`."""
    from workbench.core.training import run_folder, run_lock
    from workbench.core.training.checkpoint_meta import check_run_fields
    from workbench.core.training.checkpoints import load_resumable

    run_dir = Path(run_dir)
    recipe_path = run_dir / "recipe.toml"
    if run_folder.is_marked(run_dir):
        run_lock.raise_if_held(run_dir)  # before loading anything: another process has it
        if not run_folder.has_checkpoint(run_dir):
            raise UserFacingError(run_folder.nothing_to_resume(run_dir))
    if not recipe_path.is_file():
        raise UserFacingError(f"{run_dir} has no recipe.toml, so it cannot be resumed. Only "
                              "runs started by this app or its CLI can.")
    recipe = load_recipe(recipe_path)
    recipe.tokenizer = split_it_was_trained_on(recipe_path, recipe.tokenizer)
    writer = distributed is None or distributed.is_writer
    if data_fingerprint.read_record(run_dir) is None and writer:  # recorded before this was
        data_fingerprint.write_record(run_dir, data_fingerprint.fingerprint(recipe, control))
    changed = data_fingerprint.check_unchanged(run_dir, recipe, allow_changed_data, control)
    if changed:
        yield Notice(changed)
    saved, fallback = load_resumable(run_dir / "checkpoints")
    if fallback:
        yield Notice(fallback)
    check_run_fields(saved.meta, f"The checkpoint of {run_dir.name}")
    if not max_steps and extend_to and saved.step >= recipe.training.max_steps:
        max_steps = extend_to
    if max_steps:
        recipe.training = dataclasses.replace(recipe.training, max_steps=max_steps)
    if threads is not None:
        recipe.training = dataclasses.replace(recipe.training, threads=threads)
    if device is None and not device_available(recipe.training.device):
        # a run trained on the lab's GPU, continued on a laptop: say so, do not refuse
        device = "auto"
        yield Notice(f"This run trained on '{recipe.training.device}', which this computer "
                     f"does not have: it continues on the {resolve_device(device).type.upper()}."
                     " The steps from here are not the ones that device would have taken.")
    if device is not None:
        recipe.training = dataclasses.replace(recipe.training, device=device)
    if saved.step >= recipe.training.max_steps:
        raise UserFacingError(f"The run already trained {saved.step} of its "
                              f"{recipe.training.max_steps} steps. Set Steps above {saved.step} "
                              "(or pass --max-steps) to train it further.")
    spent = float(saved.meta.get("elapsed_s", 0.0))
    if recipe.training.minutes and spent >= 60 * recipe.training.minutes:
        raise UserFacingError(f"The run already trained its {recipe.training.minutes:g} minutes "
                              f"(its time budget). Raise 'minutes' in {recipe_path} to train it "
                              "further.")
    batch, note = same_global_batch(saved.meta, distributed.world_size if distributed else 1)
    if batch:
        recipe.training = dataclasses.replace(recipe.training, batch_size=batch)
        yield Notice(note, "info")
    data = yield from task_data_steps(recipe, control, saved.meta.get("tokenizer"))
    request = TrainRequest(data, recipe.model, recipe.training, run_dir=run_dir,
                           run_name=run_name(recipe), resume=True, hooks=hooks, gui=gui,
                           task=recipe.task, distributed=distributed)
    yield from train_steps(request, control)


def split_it_was_trained_on(recipe_path: Path, tokenizer):
    """The tokenizer settings a run was trained with. A run recorded before held-out documents
    (its recipe's [tokenizer] has no `split`) trained on the striped split: with its
    `split_stripes`, or one stripe (the contiguous cut) when it predates stripes too. Resuming
    it on today's default would train on text it validated on, so it keeps its own split."""
    try:
        table = bounded.parse_toml(bounded.read_text(recipe_path, "recipe")).get("tokenizer", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return tokenizer  # load_recipe read it a moment ago; nothing to correct
    if "split" in table:
        return tokenizer
    if "split_stripes" in table:
        return dataclasses.replace(tokenizer, split="stripes")
    return dataclasses.replace(tokenizer, split="stripes", split_stripes=1)


def same_global_batch(meta: dict, world_size: int) -> tuple[int, str]:
    """The per-process batch that keeps a run's global batch when it resumes on another number
    of processes (a torchrun run continued in the window, or on more GPUs), with what to tell
    the user; (0, "") when nothing changes."""
    saved_world = int(meta.get("world_size", 1))
    per_rank = int((meta.get("training") or {}).get("batch_size", 0))
    if saved_world == world_size or not per_rank:
        return 0, ""
    total = per_rank * saved_world
    if total % world_size:
        raise UserFacingError(
            f"This run trained {total} sequences a step ({saved_world} processes × {per_rank}), "
            f"which {world_size} processes cannot share evenly. Resume it on a number of "
            f"processes that divides {total}.")
    return total // world_size, (
        f"This run was trained by {saved_world} process(es) with batch {per_rank} each; "
        f"{world_size} go on with batch {total // world_size} each, the same {total} sequences "
        "a step.")
