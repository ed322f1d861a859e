"""The sample models shipped in resources/models/ load, generate text and carry how they were
made; the word vectors load and answer a neighbour query (issue 13, items 2 and 7)."""

from __future__ import annotations

import pytest

from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.generation import GenerationConfig
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.embeddings.interchange import load_vectors
from workbench.core.embeddings.queries import neighbours
from workbench.core.generation.generate import generation_job
from workbench.core.jobs import JobControl, drive
from workbench.core.resources import resource_path
from workbench.core.snapshot.rebuild import model_from_snapshot

PRESETS = ("char-lstm", "char-gru", "char-rnn", "char-transformer")
UNIGRAM_NATS = 3.3  # a character model that learned only letter frequencies


@pytest.mark.parametrize("name", PRESETS)
def test_each_sample_model_loads_and_writes(name):
    folder = resource_path("models", name)
    snapshot = snapshot_from_checkpoint(folder)
    assert snapshot.run_name == name and snapshot.step > 0
    model = model_from_snapshot(snapshot)
    tokenizer = tokenizer_from_dict(snapshot.tokenizer)
    events = list(drive(generation_job(model, tokenizer, "Romeo.\n",
                                       GenerationConfig(strategy="greedy", max_tokens=40)),
                        JobControl()))
    text = events[-1].result.text
    assert len(text) >= 20 and " " in text  # words, not one repeated character
    assert snapshot.metrics["val_loss"] < UNIGRAM_NATS - 1.0  # it learned more than letters


def test_the_sample_models_are_small_and_say_how_they_were_made():
    import json

    total = 0
    for name in PRESETS:
        folder = resource_path("models", name)
        meta = json.loads((folder / "latest.json").read_text())
        assert meta["sample"]["recipe"] == f"recipes/{name}.toml"
        assert resource_path(meta["sample"]["recipe"]).is_file()
        total += sum(p.stat().st_size for p in folder.iterdir())
    total += resource_path("models", "shakespeare-word2vec.bin").stat().st_size
    assert total < 8_000_000  # "a few MB in all" (the README gives each size)


def test_the_sample_word_vectors_have_neighbours():
    vectors = load_vectors(resource_path("models", "shakespeare-word2vec.bin"),
                           "word2vec-binary")
    assert len(vectors) > 3000 and vectors.size == 50
    words = [word for word, _ in neighbours(vectors, "king", 10)]
    assert "king" not in words and len(words) == 10
