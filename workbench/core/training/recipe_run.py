"""From a recipe to training: load the corpus, check its hash, tokenize, then train.

The headless CLI and the GUI's "Open recipe"/"Resume run" share these steps, so a recipe gives
the same run wherever it starts. A resumed run re-uses the tokenizer saved in its checkpoint,
so its token ids are exactly those it was trained on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterator
from pathlib import Path

from workbench.core.corpus.loading import load_corpus_steps
from workbench.core.events import Event, JobFinished, Notice
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.training.recipe import Recipe, corpus_hash, load_recipe, recipe_to_toml
from workbench.core.training.trainer import TrainRequest, train_steps


def tokens_steps(recipe: Recipe, control: JobControl, tokenizer=None
                 ) -> Generator[Event, None, object]:
    """Load and tokenize the recipe's corpus; returns the TokenizedCorpus."""
    from workbench.core.corpus.dataset import tokenize_job

    location = recipe.corpus_location()
    if not location.exists():
        raise UserFacingError(f"The recipe's corpus {location} does not exist. Edit [corpus] "
                              "in the recipe to point at a file or folder on this machine.")
    corpus = yield from load_corpus_steps(location)
    digest = corpus_hash(corpus.text)
    if recipe.corpus_sha256 and digest != recipe.corpus_sha256:
        yield Notice(f"The corpus {location} differs from the one this recipe was made with "
                     "(its SHA-256 hash changed): curves will not match the original run.")
    recipe.corpus_sha256 = digest
    result = None
    for event in tokenize_job(corpus, recipe.tokenizer, tokenizer).job(control):
        if isinstance(event, JobFinished):
            result = event.result
        else:
            yield event
    return result


def recipe_train_steps(recipe: Recipe, control: JobControl, run_dir: Path | None = None,
                       hooks=None, gui: bool = True) -> Iterator[Event]:
    """Train a recipe into a new run folder (or `run_dir`); `gui` False for a headless run."""
    tokens = yield from tokens_steps(recipe, control)
    request = TrainRequest(tokens, recipe.model, recipe.training, run_dir=run_dir,
                           run_name=recipe.name, recipe_toml=recipe_to_toml(recipe),
                           hooks=hooks, gui=gui)
    yield from train_steps(request)


def resume_steps(run_dir: str | Path, control: JobControl, max_steps: int | None = None,
                 hooks=None, extend_to: int | None = None, threads: int | None = None,
                 gui: bool = True) -> Iterator[Event]:
    """Continue a run from its latest checkpoint: to `max_steps` if given, else to its own
    step count, or, when it already got there, to `extend_to` (the GUI's Steps box).
    `threads` overrides the recipe's torch threads; `gui` False for a headless run."""
    from workbench.core.corpus.tokenizers import tokenizer_from_dict
    from workbench.core.training.checkpoints import load_checkpoint

    run_dir = Path(run_dir)
    recipe_path = run_dir / "recipe.toml"
    if not recipe_path.is_file():
        raise UserFacingError(f"{run_dir} has no recipe.toml, so it cannot be resumed. Only "
                              "runs started by this app or its CLI can.")
    recipe = load_recipe(recipe_path)
    saved = load_checkpoint(run_dir / "checkpoints" / "latest.json")
    if not max_steps and extend_to and saved.step >= recipe.training.max_steps:
        max_steps = extend_to
    if max_steps:
        recipe.training = dataclasses.replace(recipe.training, max_steps=max_steps)
    if threads is not None:
        recipe.training = dataclasses.replace(recipe.training, threads=threads)
    if saved.step >= recipe.training.max_steps:
        raise UserFacingError(f"The run already trained {saved.step} of its "
                              f"{recipe.training.max_steps} steps. Set Steps above {saved.step} "
                              "(or pass --max-steps) to train it further.")
    tokenizer = tokenizer_from_dict(saved.meta["tokenizer"])
    tokens = yield from tokens_steps(recipe, control, tokenizer)
    request = TrainRequest(tokens, recipe.model, recipe.training, run_dir=run_dir,
                           run_name=recipe.name, resume=True, hooks=hooks, gui=gui)
    yield from train_steps(request)
