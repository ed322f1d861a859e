"""The preset-tuning benchmark (benchmarks/tune_presets.py): every variant of its grids is a
recipe the trainer accepts (a typo there would waste a whole tuning run on 16 cores), a field
the preset lacks is refused, and the choice reads validation figures only."""

from __future__ import annotations

import tomllib

import pytest
import tomli_w

from benchmarks.bench_nanogpt import preset_path
from benchmarks.tune_presets import GRIDS, chosen, label, variant_recipe
from workbench.core.training.recipe import load_recipe


@pytest.mark.parametrize("preset", sorted(GRIDS))
def test_every_variant_is_a_recipe_the_trainer_accepts(tmp_path, preset):
    with open(preset_path(preset), "rb") as handle:
        shipped = tomllib.load(handle)
    for k, changes in enumerate(GRIDS[preset]):
        path = tmp_path / f"{k}.toml"
        path.write_text(tomli_w.dumps(variant_recipe(shipped, changes, minutes=6)))
        recipe = load_recipe(path)
        assert recipe.training.minutes == 6
        for dotted, value in changes.items():
            section, key = dotted.split(".")
            assert getattr(getattr(recipe, section), key) == value, (preset, dotted)
    assert GRIDS[preset][0] == {}, "the first variant is the preset as shipped"
    assert shipped["training"]["minutes"] == 8  # the shipped file itself is left as it was


def test_a_field_the_preset_lacks_is_refused():
    with pytest.raises(KeyError, match="model.hiden_size"):
        variant_recipe({"model": {"hidden_size": 256}, "training": {}},
                       {"model.hiden_size": 384}, minutes=6)


def test_the_choice_is_the_lowest_validation_at_the_last_mark():
    rows = [{"marks": [{"fresh": 1.5}, {"fresh": 1.9}]},
            {"marks": [{"fresh": 2.0}, {"fresh": 1.8}]}]
    assert chosen(rows, "fresh") == 1
    assert label({"model.dropout": 0.1, "model.num_layers": 4}) == "dropout 0.1, num_layers 4"
    assert label({}) == "as shipped"
