"""The experiment the forms describe, and how it differs from the recipe they were filled from.

Opening a recipe fills the task and model forms (Architecture panel) and the training form;
from then on the forms are the experiment. Train builds the recipe to run from them, so a task
or a hidden size changed after opening is what trains and what the run's recipe.toml records
(before, Train ran the recipe as read and ignored the forms). `changes` names what differs
from the opened recipe, for the "modified from recipe X" line above the Train button.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.fields import field_values
from workbench.core.config.training import TrainingConfig

if TYPE_CHECKING:
    from workbench.core.training.recipe import Recipe

# fields that come from the data when a model is built, not from a form
_DERIVED = ("vocab_size", "source_vocab_size", "target_vocab_size")


def _values(config: object) -> dict[str, Any]:
    if config is None or not dataclasses.is_dataclass(config):
        return {}
    return {name: value for name, value in field_values(config).items()
            if not (name in _DERIVED or name.endswith("_vocab_size"))}


def _name(task: TaskConfig | None) -> str | None:
    return task.name if task is not None else None


def _arch(model: ModelConfig | None) -> str | None:
    return model.arch if model is not None else None


def field_changes(before: object, after: object) -> list[str]:
    """'hidden_size 64 → 128' for each form field whose value differs."""
    old, new = _values(before), _values(after)
    return [f"{name} {old[name]} → {new[name]}" for name in new
            if name in old and old[name] != new[name]]


def changes(recipe: Recipe, task: TaskConfig, model: ModelConfig,
            training: TrainingConfig | None, own_data: bool) -> list[str]:
    """What the forms change in `recipe`, each as a short phrase (empty: the recipe as read).

    `own_data`: the Corpus panel tokenized another corpus or tokenizer after the recipe was
    opened, so a language model trains on the session's tokens, not the recipe's."""
    found: list[str] = []
    if _name(task) != _name(recipe.task):
        found.append(f"task {recipe.task.title} → {task.title}")
    else:
        found += [f"task {c}" for c in field_changes(recipe.task, task)]
    if _arch(model) != _arch(recipe.model):
        found.append(f"architecture {recipe.model.title} → {model.title}")
    else:
        found += field_changes(recipe.model, model)
    if training is not None:
        found += field_changes(recipe.training, training)
    if own_data and task is not None and task.needs_corpus:
        found.append("data: the Corpus panel's corpus and tokenizer")
    return found


def trains_recipe_data(recipe: Recipe, task: TaskConfig | None, own_data: bool) -> bool:
    """Whether Train reads the data the recipe names (its corpus, or the task's own data) rather
    than the session's tokenized corpus."""
    if task is None or not task.needs_corpus:
        return True  # the task form names its data (a generator, a file)
    return bool(recipe.corpus_path) and not own_data


def experiment_recipe(recipe: Recipe, task: TaskConfig, model: ModelConfig,
                      training: TrainingConfig, modified: bool) -> Recipe:
    """`recipe` with the forms' task, model and training: what Train runs and the run keeps.

    A task that brings its own data drops the recipe's corpus (it would be recorded but not
    read). A run of a changed recipe is named '<recipe>-modified', or by its task and
    architecture when the task itself changed (a sentiment classifier is no 'dates-additive')."""
    fields: dict[str, Any] = {"task": task, "model": model, "training": training}
    if not task.needs_corpus:
        fields.update(corpus_path="", corpus_resource=False, corpus_sha256="")
    if _name(task) != _name(recipe.task):
        data = task.data_name()
        fields["name"] = f"{data}-{model.arch}"
    elif modified:
        fields["name"] = f"{recipe.name}-modified"
    return dataclasses.replace(recipe, **fields)
