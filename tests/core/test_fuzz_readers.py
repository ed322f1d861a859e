"""Fuzzing the readers of files a user brings (hypothesis): word-vector files, recipes,
checkpoint metadata and run folders. Whatever the bytes, a reader either returns its result
or raises the typed user-facing error (`UserFacingError`) with a message; no other exception
escapes. The task data readers (CoNLL-U, TSV, pairs, sentences) are fuzzed in
test_fuzz_task_data.py."""

from __future__ import annotations

import json
import string

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.embeddings.interchange import CodeInFileError, load_vectors
from workbench.core.jobs import UserFacingError
from workbench.core.training import runs
from workbench.core.training.checkpoint_meta import check_meta
from workbench.core.training.checkpoints import load_checkpoint, save_checkpoint
from workbench.core.training.recipe import parse_recipe

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# text that looks like the files it fuzzes: numbers, words, separators, damage
TOKENS = st.sampled_from(["the", "king", "0.5", "-1e3", "nan", "inf", "3", "x", "", " ", "\t",
                          "\n", "\r\n", "\x00", "é", "\xff", "1 2", "2 3\n"])
LINES = st.lists(TOKENS, max_size=40).map("".join)
RAW = st.one_of(st.binary(max_size=400), LINES.map(lambda t: t.encode("utf-8", "replace")),
                LINES.map(lambda t: t.encode("latin-1", "replace")))


@FUZZ
@given(data=RAW, fmt=st.sampled_from(["word2vec-text", "glove", "fasttext-vec",
                                      "word2vec-binary", "gensim"]))
def test_vector_files_load_or_say_why(tmp_path, data, fmt):
    path = tmp_path / "vectors.txt"
    path.write_bytes(data)
    try:
        vectors = load_vectors(path, fmt)
    except CodeInFileError:
        assert fmt == "gensim"  # refused before a byte of it was unpickled
        return
    except UserFacingError as exc:
        assert str(exc)
        return
    assert fmt != "gensim" and len(vectors.words) == len(set(vectors.words))
    assert vectors.vectors.shape[0] == len(vectors) and vectors.size > 0


SCALARS = st.one_of(st.integers(-10**7, 10**7), st.floats(allow_nan=True), st.booleans(),
                    st.text(string.printable, max_size=12), st.lists(st.integers(), max_size=3))
KEYS = st.sampled_from(["arch", "hidden_size", "hiden_size", "max_steps", "lr", "kind", "name",
                        "optimizer", "resource", "path", "word_pattern", "num_heads", "d_model",
                        "seed", "bf16", "schedule", "sha256", "x"])
TABLES = st.dictionaries(KEYS, SCALARS, max_size=6)
RECIPES = st.fixed_dictionaries(
    {}, optional={"name": SCALARS, "seed": SCALARS, "corpus": TABLES, "task": TABLES,
                  "tokenizer": TABLES, "model": TABLES, "training": TABLES, "extra": SCALARS})


@FUZZ
@given(document=RECIPES)
@pytest.mark.slow
def test_recipes_parse_or_say_why(document):
    import tomli_w

    try:
        text = tomli_w.dumps(document)
    except (TypeError, ValueError):  # not representable in TOML (nan is: a float)
        return
    try:
        parse_recipe(text, source="fuzz.toml")
    except UserFacingError as exc:
        assert str(exc)


@FUZZ
@given(text=st.text(max_size=200))
def test_recipe_text_that_is_not_toml_says_why(text):
    try:
        parse_recipe(text, source="fuzz.toml")
    except UserFacingError as exc:
        assert str(exc)


META_VALUES = st.one_of(SCALARS, st.none(), TABLES, st.dictionaries(st.text(max_size=5),
                                                                    SCALARS, max_size=3))
META_KEYS = st.sampled_from(["step", "model_config", "tokenizer", "training", "task",
                             "best_val", "lr_scale", "tokens_seen", "metrics", "weights",
                             "format", "optimizer", "state_parts", "weights_sha256", "kind"])


@pytest.fixture(scope="module")
def saved_checkpoint(tmp_path_factory):
    from workbench.core.config.models import LstmConfig, config_to_dict
    from workbench.core.corpus.tokenizers import CharTokenizer
    from workbench.core.models import build_model

    folder = tmp_path_factory.mktemp("fuzz-checkpoint")
    tokenizer = CharTokenizer.train("to be or not")
    config = LstmConfig(hidden_size=4, embedding_size=4, vocab_size=tokenizer.vocab_size)
    model = build_model(config)
    save_checkpoint(folder, "latest", model, torch.optim.SGD(model.parameters(), lr=0.1),
                    {"step": 1, "model_config": config_to_dict(config),
                     "tokenizer": tokenizer.to_dict()})
    return folder


@FUZZ
@given(changes=st.dictionaries(META_KEYS, META_VALUES, max_size=4))
@pytest.mark.slow
def test_checkpoint_metadata_loads_or_says_why(saved_checkpoint, tmp_path, changes):
    meta = json.loads((saved_checkpoint / "latest.json").read_text())
    meta.update(changes)
    folder = tmp_path / "c"
    folder.mkdir(exist_ok=True)
    for name in meta.get("weights", ""), :
        if isinstance(name, str) and name and (saved_checkpoint / name).is_file():
            (folder / name).write_bytes((saved_checkpoint / name).read_bytes())
    (folder / "latest.json").write_text(json.dumps(meta))
    try:
        checkpoint = load_checkpoint(folder)
        check_meta(checkpoint.meta, "fuzz")
    except UserFacingError as exc:
        assert str(exc)


@FUZZ
@given(metrics=st.lists(RAW, max_size=8), samples=st.lists(RAW, max_size=4),
       settings_file=st.one_of(st.none(), RAW))
@pytest.mark.slow
def test_run_folders_open_with_damaged_lines_counted(tmp_path, metrics, samples,
                                                     settings_file):
    good = json.dumps({"event": "step", "step": 1, "loss": 1.0, "lr": 0.1, "grad_norm": 1.0,
                       "clipped": False, "tokens_seen": 8, "tokens_per_s": 1.0,
                       "elapsed_s": 0.1}).encode()
    (tmp_path / "metrics.jsonl").write_bytes(b"\n".join([good, *metrics]))
    (tmp_path / "samples.jsonl").write_bytes(b"\n".join(samples))
    if settings_file is not None:
        (tmp_path / "run.json").write_bytes(settings_file)
    record = runs.read_run(tmp_path)
    assert record.events and record.events[0].step == 1
    assert isinstance(record.name, str) and isinstance(runs.run_label(tmp_path), str)
    runs.truncate_after(tmp_path, 0)  # a resume's rewrite copes with the same bytes
