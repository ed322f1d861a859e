"""The training facade: jobs that train from the session state, a recipe or a saved run, and
the reading of run folders for the Training panel.

torch loads inside the jobs (on the job thread), never when the window builds this facade.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.config.tasks import LanguageModelTaskConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import Event, JobFinished, Notice
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.training import runs
from workbench.core.training.recipe import (
    Recipe,
    corpus_hash,
    corpus_reference,
    load_recipe,
    recipe_to_toml,
    run_name,
    save_recipe,
)


class TrainingBackend:
    def __init__(self, hooks=None) -> None:
        self.hooks = hooks  # ModelHooks; None = the model zoo (tests pass tiny models)

    # --- starting runs ------------------------------------------------------------------------

    def recipe_of(self, corpus, tokens, model_config, training: TrainingConfig,
                  name: str = "", task=None) -> Recipe:
        """The recipe of the session state (its corpus hash is filled in by the job). `task`
        is a task config (None: a language model on the session's corpus)."""
        task = task if task is not None else LanguageModelTaskConfig()
        if not task.needs_corpus:
            data = getattr(task, "data", task.name)  # "dates-rnn_seq2seq"
            return Recipe(name or f"{data}-{model_config.arch}", "", model_config,
                          training=training, task=task)
        if corpus is None or tokens is None:
            raise UserFacingError("Load a corpus and tokenize it (Corpus panel) before "
                                  "training.")
        path, is_resource = corpus_reference(corpus.path)
        name = name or f"{tokens.tokenizer.kind}-{model_config.arch}"
        return Recipe(name, path, model_config, tokens.config, training,
                      corpus_resource=is_resource, task=task,
                      cleaning=getattr(corpus, "cleaning", CleaningConfig()))

    def train_job(self, corpus, tokens, model_config, training: TrainingConfig,
                  name: str = "", embedding_init=None, task=None) -> JobSpec:
        """Train on the session's tokenized corpus (or, for a task that brings its own data,
        on the data its config names) into a new run folder.

        `embedding_init`: (matrix, freeze) from the Embeddings panel, copied into the new
        model's input embedding before the optimizer is made."""
        recipe = self.recipe_of(corpus, tokens, model_config, training, name, task)

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.training_loop.recipe_run import task_data_steps
            from workbench.core.training_loop.trainer import TrainRequest, train_steps

            if recipe.task.needs_corpus:
                from workbench.core.tasks.pretrained_start import tokens_for_start

                recipe.corpus_sha256 = corpus_hash(corpus.text)
                data = yield from tokens_for_start(recipe.task, corpus, tokens, control)
            else:
                data = yield from task_data_steps(recipe, control)
            hooks = self.hooks
            if embedding_init is not None:
                hooks = _with_embedding_init(hooks, *embedding_init)
                state = "frozen" if embedding_init[1] else "fine-tuned"
                yield Notice(f"The input embedding starts from the chosen word vectors "
                             f"({state}).", "info")
            request = TrainRequest(data, model_config, training, run_name=run_name(recipe),
                                   recipe_toml=recipe_to_toml(recipe), hooks=hooks,
                                   task=recipe.task)
            yield from train_steps(request, control)

        return JobSpec(f"Training {run_name(recipe)}", job)

    def recipe_job(self, recipe: Recipe, training: TrainingConfig | None = None) -> JobSpec:
        """Load the recipe's corpus, tokenize it and train (with `training` if given)."""
        if training is not None:
            recipe = dataclasses.replace(recipe, training=training)

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.training_loop.recipe_run import recipe_train_steps

            yield from recipe_train_steps(recipe, control, hooks=self.hooks)

        return JobSpec(f"Training {run_name(recipe)}", job)

    def resume_job(self, run_dir: str | Path, max_steps: int | None = None,
                   extend_to: int | None = None) -> JobSpec:
        """Continue a run from its latest checkpoint, appending to its curves (a finished run
        goes on to `extend_to` steps)."""

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.training_loop.recipe_run import resume_steps

            yield from resume_steps(run_dir, control, max_steps, hooks=self.hooks,
                                    extend_to=extend_to)

        return JobSpec(f"Resuming {Path(run_dir).name}", job)

    def checkpoint_snapshot_job(self, run_dir: str | Path, kind: str = "best") -> JobSpec:
        """A query reading a run's `best` or `latest` checkpoint as a snapshot to inspect."""
        path = Path(run_dir) / "checkpoints" / f"{kind}.json"

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.app.inspection_backend import snapshot_from_checkpoint

            if not path.is_file():
                raise UserFacingError(f"{Path(run_dir).name} has no {kind} checkpoint yet "
                                      f"({path} is missing).")
            yield JobFinished(result=snapshot_from_checkpoint(path))

        return JobSpec(f"Opening {kind} checkpoint", job)

    def test_job(self, run_dir: str | Path) -> JobSpec:
        """Score a run's best checkpoint on its test split (test_scoring.py); the result is
        a `TestLogged`."""

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.training_loop.test_scoring import scored_test_steps

            yield from scored_test_steps(run_dir, control, self.hooks)

        return JobSpec(f"Testing {Path(run_dir).name}", job)

    def follow_job(self, run_dir: str | Path, wake=None, poll_s: float | None = None
                   ) -> JobSpec:
        """Follow a run folder another process writes: its new lines (`RunGrew`) and each new
        checkpoint as a snapshot (`CheckpointLoaded`), until stopped. `wake` (a
        threading.Event) makes it look at once instead of at the next poll."""

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.app.inspection_backend import snapshot_from_checkpoint
            from workbench.core.training.run_follow import POLL_S, follow_run_steps

            yield from follow_run_steps(run_dir, control, snapshot_from_checkpoint, wake,
                                        POLL_S if poll_s is None else poll_s)

        return JobSpec(f"Following {Path(run_dir).name}", job)

    # --- recipes and run folders ----------------------------------------------------------------

    def load_recipe(self, path: str | Path) -> Recipe:
        return load_recipe(path)

    def save_recipe_job(self, path: str | Path, recipe: Recipe, corpus=None) -> JobSpec:
        """Write a recipe; hashing a large corpus takes a moment, so this is a query."""

        def job(control: JobControl) -> Iterator[Event]:
            if corpus is not None:
                recipe.corpus_sha256 = corpus_hash(corpus.text)
            yield JobFinished(result=str(save_recipe(recipe, path)))

        return JobSpec(f"Saving {Path(path).name}", job)

    def read_run_job(self, path: str | Path) -> JobSpec:
        """A query reading a run folder (its result is a `RunRecord` of core events)."""

        def job(control: JobControl) -> Iterator[Event]:
            yield JobFinished(result=runs.read_run(path, control.check))

        return JobSpec(f"Opening {Path(path).name}", job)

    def read_run(self, path: str | Path) -> runs.RunRecord:
        return runs.read_run(path)

    def runs_root(self) -> Path:
        return runs.runs_root()

    def list_runs(self) -> list[tuple[Path, str]]:
        """Run folders in the runs directory, oldest first, with the name to show."""
        return [(path, runs.run_label(path)) for path in runs.list_runs()]

    def describe_run(self, path: str | Path) -> str:
        """What a run trains, from its recipe (a small file read at once)."""
        return runs.describe_run(Path(path))

    def update_run(self, path: str | Path, **settings) -> None:
        """Keep a run's display name or colour (run.json in its folder)."""
        runs.write_settings(Path(path), **settings)


def _with_embedding_init(hooks, matrix, freeze: bool):
    """Model hooks whose builder copies word vectors into the input embedding."""
    from workbench.core.embeddings.model_init import apply_embedding_init
    from workbench.core.training.evaluation import ModelHooks

    base = hooks or ModelHooks.default()

    def build(config):
        model = base.build(config)
        apply_embedding_init(model, matrix, freeze)
        return model

    return ModelHooks(build, base.snapshot)
