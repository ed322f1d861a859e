"""The fake training domain: a recorded run (a falling loss, two evaluations, one rollback)
replayed as the trainer yields its events; run folders read and written by the real,
torch-free core functions."""

from __future__ import annotations

import math
import time
from pathlib import Path

from workbench.core.events import (
    DivergenceHandled,
    EvalLogged,
    Event,
    JobFinished,
    Progress,
    RunStarted,
    SampleGenerated,
    SnapshotReady,
    StepLogged,
)
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot
from workbench.qt.gallery.fake_traces import later, snapshot


def recorded_run(run_dir: str, steps: int = 100) -> list:
    """Events as the trainer yields them: a falling loss, two evaluations, one rollback."""
    events: list[Event] = [RunStarted(run_dir, "recorded")]
    for step in range(10, steps + 1, 10):
        loss = 4.0 * math.exp(-step / 60) + 1.0
        events.append(StepLogged(step, loss, 1e-3, 0.5, step == 10, step * 256, 5000.0,
                                 step / 10, clip_rate=0.1))
        events.append(Progress(step, steps, f"Step {step}"))
        if step == 50:
            events.append(EvalLogged(50, 2.5, math.exp(2.5), 2.5 / math.log(2), 50 * 256, 5.0))
            events.append(SnapshotReady(Snapshot({"arch": "lstm"}, {}, {}, step=50)))
            events.append(SampleGenerated(50, "To be, or not to be"))
        if step == 70:
            events.append(DivergenceHandled(70, "loss is nan", 5e-4, 1, resumed_at=60))
    events.append(EvalLogged(steps, 1.6, math.exp(1.6), 1.6 / math.log(2), steps * 256, 10.0))
    events.append(JobFinished(result=run_dir))
    return events


class FakeTraining:
    """'Training' replays `recorded_run` into `run_dir` (a pause of `delay` s between events);
    run folders are read and written with the real, torch-free core functions."""

    def __init__(self, run_dir: str | Path = "", delay: float = 0.0) -> None:
        self.run_dir, self.delay = str(run_dir), delay
        self.started = 0
        self.embedding_init = None
        self.trained: list = []  # what each start was asked to train: a Recipe or train_job's

    def _replay(self, title: str) -> JobSpec:
        def job(control):
            for event in recorded_run(self.run_dir):
                time.sleep(self.delay)
                yield event
        return JobSpec(title, job)

    def recipe_of(self, corpus, tokens, model_config, training, name="", task=None):
        from workbench.core.training.recipe import Recipe

        kept = {"task": task} if task is not None else {}
        return Recipe(name or f"char-{model_config.arch}", "", model_config, training=training,
                      **kept)

    def train_job(self, corpus, tokens, model_config, training, name="", embedding_init=None,
                  task=None):
        self.started += 1
        self.embedding_init = embedding_init
        self.trained.append(self.recipe_of(corpus, tokens, model_config, training, name, task))
        return self._replay("Training recorded")

    def recipe_job(self, recipe, training=None):
        self.started += 1
        self.trained.append(recipe)
        return self._replay(f"Training {recipe.name}")

    def resume_job(self, run_dir, max_steps=None, extend_to=None):
        self.started += 1
        return self._replay(f"Resuming {Path(run_dir).name}")

    def checkpoint_snapshot_job(self, run_dir, kind="best"):
        def job(control):
            if not (Path(run_dir) / "checkpoints" / f"{kind}.json").is_file():
                raise UserFacingError(f"{Path(run_dir).name} has no {kind} checkpoint yet.")
            yield JobFinished(result=snapshot(step=100))
        return JobSpec(f"Opening {kind} checkpoint", job)

    def test_job(self, run_dir):
        """The test figure of a recorded run's best checkpoint, as the real job's result."""
        from workbench.core.events import TestLogged

        def job(control):
            if not (Path(run_dir) / "checkpoints" / "best.json").is_file():
                raise UserFacingError(f"{Path(run_dir).name} has no best checkpoint to test.")
            yield JobFinished(result=TestLogged(step=100, test_loss=1.5, checkpoint_step=100))
        return JobSpec(f"Testing {Path(run_dir).name}", job)

    def follow_job(self, run_dir, wake=None, poll_s=None):
        def job(control):
            while not control.stop_requested:
                control.check()
                time.sleep(0.02)
            yield JobFinished()
        return JobSpec(f"Following {Path(run_dir).name}", job)

    def load_recipe(self, path):
        from workbench.core.training.recipe import load_recipe

        return load_recipe(path)

    def save_recipe_job(self, path, recipe, corpus=None):
        from workbench.core.training.recipe import save_recipe

        return later("Saving", lambda: str(save_recipe(recipe, path)))

    def read_run_job(self, path):
        from workbench.core.training import runs

        return later("Opening", lambda: runs.read_run(path))

    def runs_root(self):
        return Path(self.run_dir or ".")

    def list_runs(self):
        return []

    def describe_run(self, path):
        from workbench.core.training import runs

        return runs.describe_run(Path(path))

    def update_run(self, path, **settings):
        from workbench.core.training import runs

        runs.write_settings(Path(path), **settings)
