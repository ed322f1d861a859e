"""Recipes: one TOML file that says what to train, read by the GUI and the headless CLI alike.

```toml
name = "char-lstm"
seed = 1234
[corpus]
resource = "corpora/shakespeare-small"   # inside the app's resources folder, or
# path = "/home/me/texts/poems.txt"      # a file or folder (relative to the recipe file)
sha256 = "…"                             # of the corpus text; a mismatch is reported
[task]        # name = "language_model" (the default) or another task, plus its fields
[tokenizer]   # TokenizerConfig fields
[model]       # arch = "lstm" plus that config's fields
[training]    # TrainingConfig fields (the seed is the top-level one)
```
A recipe without a [task] table is a language-model recipe (every recipe made before tasks
existed). A task that brings its own data (a generator, a file of pairs named in [task]) needs
no [corpus]. `load_recipe` validates every table against the schema derived from its config
dataclass (core/config/schema.py: types, ranges, choices, unknown keys with "did you mean")
and raises `UserFacingError` naming the file, table and key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from workbench.core.config import schema
from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.cleaning import CleaningConfig, cleaning_to_dict
from workbench.core.config.fields import to_dict
from workbench.core.config.models import config_to_dict
from workbench.core.config.tasks import (
    DEFAULT_TASK,
    LanguageModelTaskConfig,
    task_config_to_dict,
    task_config_type,
    task_names,
)
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError
from workbench.core.resources import resource_path, resources_root
from workbench.core.training.checkpoint_meta import validated_model


@dataclass
class Recipe:
    name: str
    corpus_path: str  # absolute, or relative to the resources folder when `corpus_resource`
    model: ModelConfig  # a model config dataclass (vocab_size is set from the tokenizer at build)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    corpus_resource: bool = False
    corpus_sha256: str = ""
    task: TaskConfig = field(default_factory=LanguageModelTaskConfig)
    cleaning: CleaningConfig = field(default_factory=CleaningConfig)  # applied to the corpus

    @property
    def seed(self) -> int:
        return self.training.seed

    def corpus_location(self) -> Path:
        return resource_path(self.corpus_path) if self.corpus_resource else Path(self.corpus_path)


def corpus_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_reference(path: str | Path) -> tuple[str, bool]:
    """(path, is_resource): a corpus inside the resources folder is stored relative to it, so
    a recipe made on one machine finds the shipped corpus on another."""
    path = Path(path).expanduser().resolve()
    try:
        return path.relative_to(resources_root().resolve()).as_posix(), True
    except (ValueError, FileNotFoundError):
        return str(path), False


def recipe_to_toml(recipe: Recipe) -> str:
    model = {k: v for k, v in config_to_dict(recipe.model).items() if not _is_vocabulary(k)}
    training = {k: v for k, v in to_dict(recipe.training).items() if k != "seed"}
    document: dict[str, Any] = {"name": recipe.name, "seed": recipe.seed}
    if recipe.corpus_path:
        corpus = {"resource" if recipe.corpus_resource else "path": recipe.corpus_path}
        if recipe.corpus_sha256:
            corpus["sha256"] = recipe.corpus_sha256
        if recipe.cleaning.active:  # the hash is of the cleaned text: keep how it was cleaned
            corpus["cleaning"] = cleaning_to_dict(recipe.cleaning)
        document["corpus"] = corpus
    document.update({"task": task_config_to_dict(recipe.task),
                     "tokenizer": to_dict(recipe.tokenizer), "model": model,
                     "training": training})
    return tomli_w.dumps(document)


def _is_vocabulary(field_name: str) -> bool:
    """Vocabulary sizes come from the data when a model is built, not from the recipe."""
    return field_name == "vocab_size" or field_name.endswith("_vocab_size")


def save_recipe(recipe: Recipe, path: str | Path) -> Path:
    from workbench.core.files.atomic import atomic_write

    path = Path(path)
    atomic_write(path, recipe_to_toml(recipe).encode("utf-8"))
    return path


RECIPE_KEYS = ("name", "seed", "corpus", "task", "tokenizer", "model", "training")
CORPUS_KEYS = ("resource", "path", "sha256", "cleaning")


def parse_recipe(text: str, source: str = "recipe", base: Path | None = None) -> Recipe:
    """A recipe from TOML, every table checked against its config's schema (schema.py):
    types, ranges, choices and unknown keys, each named with what it must be."""
    try:
        data = bounded.parse_toml(text)  # a byte-order mark dropped, deep nesting refused
    except tomllib.TOMLDecodeError as exc:
        raise UserFacingError(f"{source} is not valid TOML: {exc}. Fix the file.") from None
    schema.known_keys(data, RECIPE_KEYS, source)
    if not isinstance(data.get("model"), dict):
        raise UserFacingError(f"{source} has no [model] table. Add one (see the presets in "
                              "resources/recipes/).")
    for table in ("task", "corpus", "tokenizer", "training"):
        if table in data and not isinstance(data[table], dict):
            raise UserFacingError(f"{source}: '{table}' must be a table ([{table}]).")
    task_table = data.get("task", {})
    name = schema.chosen("task", task_table.get("name", DEFAULT_TASK), task_names(),
                         f"{source}, [task] name")
    task = schema.validated(task_config_type(name), task_table, f"{source}, [task]",
                            ignore=("name",))
    task = _task_paths_from(task, base)
    corpus_path, is_resource, corpus = "", False, data.get("corpus")
    if corpus is None and not task.needs_corpus:
        corpus = {}
    elif not isinstance(corpus, dict):
        raise UserFacingError(f"{source} has no [corpus] table. Add one (see the presets in "
                              "resources/recipes/).")
    else:
        schema.known_keys(corpus, CORPUS_KEYS, f"{source}, [corpus]")
        if not all(isinstance(v, str) for k, v in corpus.items() if k != "cleaning"):
            raise UserFacingError(f"{source}, [corpus]: resource, path and sha256 are text.")
    if "resource" in corpus:
        corpus_path, is_resource = corpus["resource"], True
    elif "path" in corpus:
        location = Path(corpus["path"]).expanduser()
        if not location.is_absolute() and base is not None:
            # absolute from here on: the run folder keeps a copy of the recipe, and a path
            # relative to where this one was read means nothing there (resume failed)
            location = (base / location).absolute()
        corpus_path, is_resource = str(location), False
    elif task.needs_corpus:
        raise UserFacingError(f"{source}: [corpus] needs 'resource' or 'path'.")
    model_table = data["model"]
    model = validated_model(model_table, f"{source}, [model]")
    tokenizer = schema.validated(TokenizerConfig, data.get("tokenizer", {}),
                                 f"{source}, [tokenizer]")
    training_data = dict(data.get("training", {}))
    if "seed" in data:
        training_data["seed"] = data["seed"]
    training = schema.validated(TrainingConfig, training_data, f"{source}, [training]")
    if not isinstance(data.get("name", "run"), str):
        raise UserFacingError(f"{source}: 'name' must be text.")
    tables = (("task", task), ("model", model), ("tokenizer", tokenizer), ("training", training))
    for table, config in tables:
        problems = config.problems()
        if problems:
            raise UserFacingError(f"{source}, [{table}]: " + " ".join(problems))
    cleaning = schema.validated(CleaningConfig, corpus.get("cleaning", {}),
                                f"{source}, [corpus.cleaning]")
    if cleaning.problems():
        raise UserFacingError(f"{source}, [corpus.cleaning]: " + " ".join(cleaning.problems()))
    return Recipe(name=data.get("name", "run"), corpus_path=corpus_path, model=model,
                  tokenizer=tokenizer, training=training, corpus_resource=is_resource,
                  corpus_sha256=corpus.get("sha256", ""), task=task, cleaning=cleaning)


# files or folders a task reads: data, a pretrained encoder's run, a model folder to fine-tune
TASK_PATH_FIELDS = ("path", "test_path", "pretrained", "start_from")


def _task_paths_from(task, base: Path | None):
    """The task's data paths made absolute against the recipe's folder, as the corpus path is:
    a recipe's `path = "pairs.tsv"` means the file beside the recipe, not one in whatever
    folder the command was started from (a resume from elsewhere trained on that one)."""
    if base is None:
        return task
    changes = {}
    for name in TASK_PATH_FIELDS:
        value = getattr(task, name, None)
        if not isinstance(value, str) or not value.strip() or value.startswith("run:"):
            continue  # empty, or 'run:NAME' (the newest run of that name)
        location = Path(value).expanduser()
        if not location.is_absolute():
            changes[name] = str((base / location).absolute())
    return dataclasses.replace(task, **changes) if changes else task


def load_recipe(path: str | Path) -> Recipe:
    path = Path(path).expanduser()
    try:
        text = bounded.read_text(path, "recipe")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFacingError(f"Cannot read the recipe {path}: {exc}.") from None
    return parse_recipe(text, source=str(path), base=path.parent)


def corpus_label(recipe: Recipe) -> str:
    """The corpus a recipe trains on, as a short name ('shakespeare-small'), or ''."""
    return Path(recipe.corpus_path).stem if recipe.corpus_path else ""


def run_name(recipe: Recipe) -> str:
    """The name a run of `recipe` starts with: the recipe's name, with its architecture and
    corpus added when the name lacks them ('char-lstm' on shakespeare-small ->
    'char-lstm-shakespeare-small'), so runs of one recipe on two corpora, or two models
    started from the same preset, can be told apart (the user may rename a run later)."""
    parts = [recipe.name or "run"]
    arch = str(getattr(recipe.model, "arch", ""))
    corpus = corpus_label(recipe)
    for part in (arch, corpus):
        if part and part.lower() not in "-".join(parts).lower():
            parts.append(part)
    return "-".join(parts)


def describe(recipe: Recipe) -> str:
    """What a recipe trains, in a line: 'LSTM, 1 layer × 256, on shakespeare-small (char
    tokens), 2,000 steps'."""
    model = recipe.model
    shape = []
    layers = getattr(model, "num_layers", None)
    width = getattr(model, "hidden_size", None) or getattr(model, "d_model", None)
    if layers and width:
        shape.append(f"{layers} layer{'s' if layers != 1 else ''} × {width}")
    text = ", ".join([getattr(model, "title", "") or getattr(model, "arch", "model")] + shape)
    corpus = corpus_label(recipe)
    if corpus:
        text += f", on {corpus} ({recipe.tokenizer.kind} tokens)"
    task = getattr(recipe.task, "name", "language_model")
    if task != "language_model":
        text += f", task {getattr(recipe.task, 'title', task)}"
    if recipe.training.minutes:  # a time budget ends the run, not the step cap
        return f"{text}, {recipe.training.minutes:g} minutes"
    return f"{text}, {recipe.training.max_steps:,} steps"
