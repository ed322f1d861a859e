"""A run records its held-out text, and resumes on it; a run made before held-out documents
(its recipe has `split_stripes` and no `split`) resumes on its old striped split, id for id."""

from __future__ import annotations

import re

import numpy as np
import pytest
from training_fixtures import TEXT, tiny_hooks_for_any_config, write_tiny_recipe

import workbench.core.tasks.language_model as language_model
from workbench.app.train_cli import main
from workbench.core.corpus.dataset import split_ids
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.recipe import load_recipe


@pytest.fixture(autouse=True)
def tiny_models(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(ModelHooks, "default", staticmethod(tiny_hooks_for_any_config))


@pytest.fixture
def tokenized_runs(monkeypatch):
    """The TokenizedCorpus of every run or resume, in order."""
    seen = []
    original = language_model.corpus_tokens_steps

    def recording(recipe, control, tokenizer=None):
        result = yield from original(recipe, control, tokenizer)
        seen.append(result)
        return result

    monkeypatch.setattr(language_model, "corpus_tokens_steps", recording)
    return seen


def same_split(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in ((a.train, b.train), (a.val, b.val),
                                                 (a.test, b.test)))


def test_an_old_striped_run_resumes_on_its_identical_split(tmp_path, tokenized_runs):
    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    (tmp_path / "tiny.txt").write_text(TEXT * 10, encoding="utf-8")  # 27,000 chars: 2 stripes
    recipe.write_text(recipe.read_text().replace(
        "test_fraction = 0.0\n", 'test_fraction = 0.0\nsplit = "stripes"\nsplit_stripes = 4\n'),
        encoding="utf-8")
    out = tmp_path / "old-run"
    assert main([str(recipe), "--out", str(out)]) == 0
    # make its folder what the app wrote before held-out documents: no `split`, no names
    kept = out / "recipe.toml"
    old = re.sub(r'(?m)^(split|validation_\w+|test_documents|test_stretches) = .*\n', "",
                 kept.read_text(encoding="utf-8"))
    assert "split_stripes = 4" in old and "split =" not in old
    kept.write_text(old, encoding="utf-8")
    assert main(["--resume", str(out), "--max-steps", "20"]) == 0
    trained, resumed = tokenized_runs
    assert resumed.held_out is None and resumed.stripes() == 2
    assert same_split(trained, resumed)
    striped = split_ids(resumed.ids, 0.1, 0.0, stripes=4)
    assert all(np.array_equal(x, y) for x, y in zip(striped, (resumed.train, resumed.val,
                                                                 resumed.test), strict=True))
    # today's split of the same text holds out other ids: the check above can fail
    assert not np.array_equal(language_model_split(tmp_path).val, resumed.val)


def language_model_split(folder):
    """Today's default split of the tiny run's text."""
    import dataclasses

    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.corpus.loading import load_corpus
    from workbench.core.jobs import JobControl, drive

    recipe = load_recipe(folder / "tiny.toml")
    config = dataclasses.replace(recipe.tokenizer, split="documents")
    *_, last = drive(tokenize_job(load_corpus(folder / "tiny.txt"), config), JobControl())
    return last.result


def test_a_new_run_records_its_held_out_documents_and_resumes_on_them(tmp_path,
                                                                      tokenized_runs):
    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    plays = tmp_path / "plays"
    plays.mkdir()
    for i, name in enumerate(("ariel", "brutus", "cassio", "duncan")):
        (plays / f"{name}.txt").write_text(TEXT[i * 300:] + f"{name} ends.\n", encoding="utf-8")
    recipe.write_text(recipe.read_text().replace('path = "tiny.txt"', 'path = "plays"'),
                      encoding="utf-8")
    out = tmp_path / "new-run"
    assert main([str(recipe), "--out", str(out)]) == 0
    recorded = load_recipe(out / "recipe.toml").tokenizer
    assert recorded.split == "documents" and len(recorded.validation_documents) == 1
    held = recorded.validation_documents[0]
    first = tokenized_runs[0]
    assert first.tokenizer.decode(first.val).endswith(f"{held[:-4]} ends.\n")
    # the same run resumed with another seed in its recipe still holds out the same play
    kept = out / "recipe.toml"
    kept.write_text(kept.read_text(encoding="utf-8").replace("seed = 3", "seed = 4"),
                    encoding="utf-8")
    assert main(["--resume", str(out), "--max-steps", "20"]) == 0
    assert same_split(first, tokenized_runs[1])
