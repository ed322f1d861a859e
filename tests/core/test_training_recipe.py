"""Recipes (TOML) and run folders read back for the GUI."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from workbench.core.config.models import LstmConfig
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import EvalLogged, StepLogged
from workbench.core.jobs import UserFacingError
from workbench.core.resources import default_corpus_path
from workbench.core.training import runs
from workbench.core.training.recipe import (
    Recipe,
    corpus_reference,
    load_recipe,
    parse_recipe,
    run_name,
    save_recipe,
)


def test_recipe_round_trip_keeps_every_setting(tmp_path):
    path, is_resource = corpus_reference(default_corpus_path())
    assert is_resource and path == "corpora/shakespeare-small"
    recipe = Recipe("my-lstm", path, LstmConfig(hidden_size=96, num_layers=2),
                    TokenizerConfig(kind="char", val_fraction=0.05),
                    TrainingConfig(lr=2e-3, seed=99, schedule="step"), corpus_resource=True,
                    corpus_sha256="ab" * 32)
    save_recipe(recipe, tmp_path / "r.toml")
    text = (tmp_path / "r.toml").read_text()
    assert 'resource = "corpora/shakespeare-small"' in text and "seed = 99" in text
    loaded = load_recipe(tmp_path / "r.toml")
    assert loaded == recipe
    assert loaded.corpus_location() == default_corpus_path()


def test_relative_corpus_path_is_relative_to_the_recipe(tmp_path):
    text = '[corpus]\npath = "texts/poems.txt"\n[model]\narch = "gru"\n'
    (tmp_path / "r.toml").write_text(text)
    recipe = load_recipe(tmp_path / "r.toml")
    assert recipe.corpus_location() == tmp_path / "texts" / "poems.txt"


@pytest.mark.parametrize("text, message", [
    ("[corpus\n", "is not valid TOML"),
    ('[model]\narch = "lstm"\n', r"has no \[corpus\] table"),
    ('[corpus]\nresource = "x"\n[model]\narch = "mamba"\n', "unknown architecture 'mamba'"),
    ('[corpus]\nresource = "x"\n[model]\narch = "lstm"\n[training]\nlr = -1\n',
     r"\[training\]: 'lr' must be a number from 1e-06 to 10, not -1"),
    ('[corpus]\n[model]\narch = "lstm"\n', "needs 'resource' or 'path'"),
])
def test_bad_recipes_name_the_file_and_the_problem(tmp_path, text, message):
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(UserFacingError, match=message) as error:
        load_recipe(tmp_path / "bad.toml")
    assert "bad.toml" in str(error.value)


def test_run_folder_reads_back_and_skips_a_line_cut_short(tmp_path):
    log = runs.RunLog(tmp_path)
    log.write(StepLogged(10, 2.5, 1e-3, 0.4, False, 640, 1000.0, 1.0))
    log.write(EvalLogged(10, 2.4, 11.0, 3.46))
    log.close()
    with open(tmp_path / "metrics.jsonl", "a") as out:
        out.write('{"event": "step", "step": 2')  # a run killed mid-write
    runs.write_settings(tmp_path, name="renamed", colour="#ff0000")
    record = runs.read_run(tmp_path)
    assert record.name == "renamed" and record.skipped_lines == 1
    assert record.events == [StepLogged(10, 2.5, 1e-3, 0.4, False, 640, 1000.0, 1.0),
                             EvalLogged(10, 2.4, 11.0, 3.46)]
    with pytest.raises(UserFacingError, match="is not a run folder"):
        runs.read_run(tmp_path / "nothing")


def test_recipe_seed_lives_at_the_top(tmp_path):
    recipe = parse_recipe('seed = 5\n[corpus]\nresource = "x"\n[model]\narch = "rnn"\n')
    assert recipe.seed == 5 and recipe.training.seed == 5


def test_presets_load_and_find_the_shipped_corpus():
    from workbench.core.resources import resource_path

    presets = sorted(resource_path("recipes").glob("*.toml"))
    archs = {}
    for preset in presets:
        recipe = load_recipe(preset)
        if recipe.task.name == "language_model":  # a shipped corpus, by characters
            shipped = (resource_path("corpora", "names") if recipe.name == "char-names"
                       else default_corpus_path())
            assert recipe.corpus_location() == shipped and recipe.corpus_location().is_dir()
            assert recipe.tokenizer.kind == "char"
        elif recipe.task.name == "seq2seq":  # generated data, no corpus
            assert recipe.corpus_path == "" and recipe.task.data in ("dates", "reverse")
        archs.setdefault(recipe.task.name, set()).add(recipe.model.arch)
    assert archs["language_model"] == {"lstm", "gru", "rnn", "transformer"}
    assert archs["seq2seq"] == {"rnn_seq2seq", "transformer_seq2seq"}


def test_run_labels_read_well(tmp_path):
    folder = tmp_path / "20261122-233239-char-lstm"
    folder.mkdir()
    assert runs.run_label(folder) == "char-lstm 11-22 23:32"
    runs.write_settings(folder, name="my best")
    assert runs.run_label(folder) == "my best"
    assert runs.run_label(tmp_path) == tmp_path.name


def test_run_names_carry_the_architecture_and_the_corpus():
    """Runs of one recipe on two corpora, or of two models from one preset, must be told
    apart in every list and overlay: the name adds what the recipe's name lacks."""
    root = Path(__file__).resolve().parents[2] / "resources"
    assert run_name(load_recipe(root / "recipes" / "char-lstm.toml")) \
        == "char-lstm-shakespeare-small"  # 'lstm' is in the name already
    assert run_name(load_recipe(root / "lessons" / "recipes" / "gru-matched.toml")) \
        == "gru-matched-shakespeare-small"
    recipe = load_recipe(root / "lessons" / "recipes" / "lstm-small.toml")
    assert run_name(dataclasses.replace(recipe, name="small")) == "small-lstm-shakespeare-small"
