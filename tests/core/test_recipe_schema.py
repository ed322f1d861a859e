"""Recipes are validated by a schema derived from the config dataclasses: types, ranges,
choices and unknown keys, each named with what it must be (a string step count gave a raw
TypeError, a misspelled key trained at the default)."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.core.config import schema
from workbench.core.config.fields import param
from workbench.core.jobs import UserFacingError
from workbench.core.training.recipe import parse_recipe

BASE = """name = "r"
[corpus]
resource = "corpora/shakespeare-small"
[model]
arch = "lstm"
{model}
[training]
{training}
"""


def _error(model: str = "", training: str = "", text: str | None = None) -> str:
    with pytest.raises(UserFacingError) as failed:
        parse_recipe(text or BASE.format(model=model, training=training), source="r.toml")
    return str(failed.value)


@pytest.mark.parametrize("line, expected", [
    ('max_steps = "x"', "'max_steps' must be a whole number from 1 to 10,000,000, not 'x'"),
    ("max_steps = 2.5", "'max_steps' must be a whole number"),
    ("max_steps = true", "'max_steps' must be a whole number"),
    ("bf16 = 1", "'bf16' must be true or false, not 1"),
    ('optimizer = "adam"', "'optimizer' must be one of 'adamw', 'sgd', not 'adam'"),
    ("lr = nan", "'lr' must be a number from 1e-06 to 10, not nan"),
    ("max_steps = -100", "from 1 to 10,000,000, not -100"),
])
def test_wrong_types_and_ranges_name_the_key_and_the_allowed_values(line, expected):
    message = _error(training=line)
    assert "r.toml, [training]" in message and expected in message


def test_a_misspelled_key_is_an_error_with_did_you_mean():
    message = _error(model="hiden_size = 512")
    assert "unknown key 'hiden_size' (did you mean 'hidden_size'?)" in message
    assert "r.toml, [model]" in message


def test_unknown_tables_and_architectures_suggest_the_nearest():
    assert "unknown key 'trainig' (did you mean 'training'?)" in _error(
        text=BASE.format(model="", training="") + "[trainig]\n")
    assert "Did you mean 'lstm'?" in _error(text=BASE.format(model="", training="").replace(
        'arch = "lstm"', 'arch = "lstn"'))


def test_a_new_config_type_is_covered_without_a_hand_written_check():
    @dataclasses.dataclass
    class NewTaskConfig:
        labels: int = param(2, "Labels", "classes", min=2, max=100)
        smoothing: float = param(0.0, "Smoothing", "label smoothing", min=0.0, max=0.5)
        pooling: str = param("mean", "Pooling", "how", choices=("mean", "first"))

    assert schema.validated(NewTaskConfig, {"labels": 5}, "[task]").labels == 5
    with pytest.raises(schema.SchemaError, match="'pooling' must be one of 'mean', 'first'"):
        schema.validated(NewTaskConfig, {"pooling": "max"}, "[task]")
    with pytest.raises(schema.SchemaError, match="did you mean 'smoothing'"):
        schema.validated(NewTaskConfig, {"smothing": 0.1}, "[task]")


def test_every_registered_model_and_task_config_has_a_schema():
    from workbench.core.config.models import MODEL_CONFIGS
    from workbench.core.config.tasks import TASK_CONFIGS

    for config_type in [*MODEL_CONFIGS.values(), *TASK_CONFIGS.values()]:
        made = schema.validated(config_type, {}, "t")
        assert made == config_type()


def test_the_shipped_presets_still_load():
    from workbench.core.resources import resource_path
    from workbench.core.training.recipe import load_recipe

    presets = sorted(resource_path("recipes").glob("*.toml"))
    assert presets
    for path in presets:
        load_recipe(path)
