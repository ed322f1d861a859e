"""The test figure of a run on request: its 'best' checkpoint (the best validation; 'latest'
when no validation made one) scored on the test split of its own data, in a job, as the trainer
scores it when a run ends (`Trainer._test_figure`).

The data is prepared as a resume prepares it (`recipe_run`): the run's recipe, the split it was
trained on, the vocabulary saved in the checkpoint; the task's `test` then reads the same
windows or examples the end of the run reads. It runs on the CPU (a query beside the window),
and writes nothing into the run folder, which may be another process's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import torch

from workbench.core.config.models import config_from_dict
from workbench.core.events import Event, JobFinished, Progress, TestLogged
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.tasks import build_task
from workbench.core.training import checkpoints
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.recipe import load_recipe
from workbench.core.training_loop.recipe_run import split_it_was_trained_on, task_data_steps


def scored_test_steps(run_dir: str | Path, control: JobControl, hooks: ModelHooks | None = None
               ) -> Iterator[Event]:
    """Events of scoring a run's best checkpoint on its test split; the result of the final
    `JobFinished` is the `TestLogged`."""
    run_dir = Path(run_dir)
    recipe_path = run_dir / "recipe.toml"
    if not recipe_path.is_file():
        raise UserFacingError(f"{run_dir.name} has no recipe.toml, so its data (and its test "
                              "split) cannot be rebuilt. Only runs started by this app or its "
                              "CLI can be tested.")
    folder = run_dir / "checkpoints"
    which = "best" if (folder / "best.json").is_file() else "latest"
    if not (folder / f"{which}.json").is_file():
        raise UserFacingError(f"{run_dir.name} has no checkpoint yet: train it for a few "
                              "steps first.")
    yield Progress(0, None, f"Reading the {which} checkpoint of {run_dir.name}")
    saved = checkpoints.load_checkpoint(folder / f"{which}.json")
    recipe = load_recipe(recipe_path)
    recipe.tokenizer = split_it_was_trained_on(recipe_path, recipe.tokenizer)
    # the global batch the run trained with (the task plans its windows from it)
    world = int(saved.meta.get("world_size", 1))
    training = dataclasses.replace(recipe.training,
                                   batch_size=recipe.training.batch_size * world)
    data = yield from task_data_steps(recipe, control, saved.meta.get("tokenizer"))
    control.check()
    hooks = hooks or ModelHooks.default()
    task = build_task(recipe.task, data)
    model_config = config_from_dict(saved.meta["model_config"]) \
        if "model_config" in saved.meta else recipe.model
    model = task.build_model(model_config, hooks.build)
    checkpoints.load_weights_into(model, saved, f"{which} checkpoint of {run_dir.name}")
    device = torch.device("cpu")
    task.start(model, training, device)
    yield Progress(0, None, f"Scoring step {saved.step} of {run_dir.name} on the test split")
    result = task.test(model, False)
    if result is None:
        raise UserFacingError(f"{run_dir.name} has no test split: its recipe holds out no test "
                              "text (raise the test share of the tokenizer or of the task's "
                              "data, then train again).")
    yield JobFinished(result=TestLogged(saved.step, result.loss, saved.step, which,
                                        {"test_loss": result.loss, **result.metrics}))
