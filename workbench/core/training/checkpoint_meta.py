"""A checkpoint's metadata checked by schema before anything is built from it.

The JSON beside the weights says which model to build, with which tokenizer, from which step.
A damaged or edited file must not reach torch as raw errors (a KeyError for a missing key, a
negative step that wiped the curves and trained with a negative learning rate). The model,
training and task tables go through the schemas derived from their config dataclasses
(core/config/schema.py); the run's own fields through the one below. Unknown keys are errors.
"""

from __future__ import annotations

import math
from typing import Any

import pydantic

from workbench.core.config import schema
from workbench.core.config.models import MODEL_CONFIGS, architectures
from workbench.core.config.tasks import DEFAULT_TASK, task_config_type, task_names
from workbench.core.config.training import TrainingConfig
from workbench.core.corpus.tokenizer_tables import table_problem
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.jobs import UserFacingError


class RunFields(pydantic.BaseModel):
    """The fields a checkpoint records about its run (besides the config tables)."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    format: str
    step: int = pydantic.Field(ge=0)
    kind: str = "latest"
    tokens_seen: int = pydantic.Field(0, ge=0)
    elapsed_s: float = pydantic.Field(0.0, ge=0, allow_inf_nan=False)
    best_val: float = math.inf  # inf before the first validation
    best_step: int = pydantic.Field(-1, ge=-1)  # -1: no 'best' checkpoint yet
    since_best: int = pydantic.Field(0, ge=0)  # validations since it (early-stopping patience)
    lr_scale: float = pydantic.Field(1.0, gt=0, le=1, allow_inf_nan=False)
    metrics: dict[str, float] = {}
    run_name: str = ""
    weights_sha256: str = pydantic.Field(pattern=r"^[0-9a-f]{64}$")
    weights: str = ""
    state_parts: int = pydantic.Field(0, ge=0)
    state_ranks: int = pydantic.Field(1, ge=1)  # torchrun processes that saved it
    world_size: int = pydantic.Field(1, ge=1)
    optimizer: dict[str, Any] = {}
    tokenizer: dict[str, Any]
    model_config_: dict[str, Any] = pydantic.Field(alias="model_config")
    training: dict[str, Any] = {}
    task: dict[str, Any] = {}
    sample: dict[str, Any] = {}  # how a shipped sample model was made (model_files.py)


def check_meta(meta: dict, where: str) -> None:
    """`UserFacingError` naming what is wrong with a checkpoint's metadata: its run fields
    and the model, training and task tables it asks to build."""
    check_run_fields(meta, where)
    validated_model(meta["model_config"], f"{where}, model_config")
    tables = meta["tokenizer"]
    if isinstance(tables, dict) and "pretrained_encoder" in tables:  # a fine-tuning run's
        validated_model(tables["pretrained_encoder"], f"{where}, tokenizer pretrained_encoder")
    if meta.get("training"):
        schema.validated(TrainingConfig, meta["training"], f"{where}, training")
    if meta.get("task"):
        name = schema.chosen("task", meta["task"].get("name", DEFAULT_TASK), task_names(),
                             f"{where}, task")
        schema.validated(task_config_type(name), meta["task"], f"{where}, task",
                         ignore=("name",))
    check_tokenizers(meta, where)


def validated_model(table: Any, where: str) -> Any:
    """A model config from a recipe's [model] table or a checkpoint's model_config, and the
    encoder nested in a classifier's, tagger's or masked-LM's, each as strictly as the other:
    an unknown key in the nested encoder was dropped without a word, and the encoder built
    with a default in its place."""
    if not isinstance(table, dict):
        raise schema.SchemaError(f"{where} must be a table of settings, not "
                                 f"{schema._shown(table)}.")
    arch = schema.chosen("architecture", table.get("arch"), architectures(), f"{where} arch")
    config = schema.validated(MODEL_CONFIGS[arch], table, where, ignore=("arch",))
    encoder = table.get("encoder")
    if isinstance(encoder, dict) and encoder:
        validated_model(encoder, f"{where}, encoder")
    return config


def check_tokenizers(meta: dict, where: str) -> None:
    """The tokenizer tables a checkpoint's task reads, each one buildable, and (for a language
    model and a translator) as large as the output layer it names: a table of 30 symbols
    for a model of 34 outputs wrote an index past the end of the table."""
    task = (meta.get("task") or {}).get("name", DEFAULT_TASK)
    tables = meta["tokenizer"]
    if task == "forecast":  # numbers: the scale that reads them back, no token table
        if not (isinstance(tables, dict) and tables.get("kind") == "series"
                and all(isinstance(tables.get(k), (int, float)) for k in ("mean", "std"))
                and tables["std"] > 0):
            raise UserFacingError(f"{where} cannot be used: its series scale (mean and std) "
                                  "is missing or damaged. Use another checkpoint.")
        return
    if task == "seq2seq":
        sizes = {"source": "source_vocab_size", "target": "target_vocab_size"}
    else:
        tables, sizes = {"": tables}, {"": "vocab_size" if task == DEFAULT_TASK else ""}
    for side, size_key in sizes.items():
        table = tables.get(side) if isinstance(tables, dict) else None
        problem = table_problem(table)
        if problem is not None:
            named = f"the {side} tokenizer table is missing" if table is None else problem
            raise UserFacingError(f"{where} cannot be used: {named}. The file was damaged or "
                                  "edited; use another checkpoint.")
        expected = meta["model_config"].get(size_key) if size_key else None
        if not isinstance(expected, int):
            continue
        try:
            size = tokenizer_from_dict(table).vocab_size
        except UserFacingError as exc:
            raise UserFacingError(f"{where} cannot be used: "
                                  f"{str(exc).split(': ', 1)[-1]}") from None
        if size != expected:
            raise UserFacingError(
                f"{where} cannot be used: its {side + ' ' if side else ''}tokenizer has "
                f"{size:,} entries but the model's {size_key} is {expected:,}. The file was "
                "damaged or edited; use another checkpoint.")


def check_run_fields(meta: dict, where: str) -> None:
    """The run's own fields (step, counters) only: a resume builds its model from the recipe
    and checks the weights against it tensor by tensor."""
    try:
        RunFields.model_validate(meta)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "?"
        if first["type"] == "missing":
            problem = f"the key '{key}' is missing"
        elif first["type"] == "extra_forbidden":
            problem = f"it has an unknown key '{key}'"
        else:
            problem = f"'{key}' is {schema._shown(first.get('input'))}: {first['msg'].lower()}"
        raise UserFacingError(f"{where} cannot be used: {problem}. The file was damaged or "
                              "edited; use another checkpoint.") from None
