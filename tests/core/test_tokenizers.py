"""Tokenizers: special ids, exact round trips (char, BPE), vocabulary cuts, serialisation."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.dataset import split_ids, stripe_count, tokenize_job
from workbench.core.corpus.tokenizers import (
    BOS,
    EOS,
    PAD,
    UNK,
    BpeTokenizer,
    CharTokenizer,
    WordTokenizer,
    tokenizer_from_dict,
)
from workbench.core.events import JobFailed, JobFinished, Progress
from workbench.core.jobs import JobControl, UserFacingError, drive

SAMPLE = "To be, or not to be: that is the question.\nWhether 'tis nobler in the mind\n" * 5


@pytest.fixture(scope="module")
def bpe() -> BpeTokenizer:
    return BpeTokenizer.train(SAMPLE.splitlines(keepends=True) * 3, vocab_size=300)


def test_special_ids_come_first_in_every_tokenizer(bpe):
    char = CharTokenizer.train(SAMPLE)
    word = WordTokenizer.train(SAMPLE, TokenizerConfig().word_pattern)
    for tok in (char, word, bpe):
        names = [tok.token(i) for i in (PAD, UNK, BOS, EOS)]
        assert names == ["<pad>", "<unk>", "<bos>", "<eos>"], tok.kind


def test_char_vocabulary_is_ordered_by_frequency_and_cut_by_min_count():
    tok = CharTokenizer.train("aaabbc", min_count=2)
    assert tok.vocab_size == 4 + 2
    assert tok.token(4) == "a" and tok.token(5) == "b"
    assert tok.encode("abc") == [4, 5, UNK]
    assert tok.decode([BOS, 4, 5, UNK, EOS, PAD]) == "ab\ufffd"


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=0, max_size=200))
def test_char_round_trip_is_exact_for_any_text_it_was_built_on(text):
    tok = CharTokenizer.train(text)
    ids = tok.encode(text)
    assert len(ids) == len(text)
    assert tok.decode(ids) == text


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_bpe_round_trip_is_exact_for_any_text(bpe, text):
    assert bpe.decode(bpe.encode(text)) == text


def test_special_token_names_in_the_text_are_plain_text(bpe):
    again = tokenizer_from_dict(bpe.to_dict())
    for tok in (bpe, again, CharTokenizer.train("say <pad> and <eos>")):
        ids = tok.encode("say <pad> and <eos>")
        assert PAD not in ids and EOS not in ids
        assert tok.decode(ids) == "say <pad> and <eos>"


def test_bpe_learns_merges_up_to_the_chosen_size(bpe):
    assert 260 < bpe.vocab_size <= 300
    ids = bpe.encode("that is the question")
    assert len(ids) < len("that is the question")  # merged, not one token per byte
    assert UNK not in ids
    assert bpe.token(bpe.encode(" the")[0]).strip() in {"t", "th", "the"}


def test_word_tokenizer_lowercases_cuts_and_respaces():
    pattern = TokenizerConfig().word_pattern
    tok = WordTokenizer.train("The cat. the cat, THE dog o'er\n", pattern, lowercase=True,
                              min_count=2)
    assert [tok.token(i) for i in range(4, tok.vocab_size)] == ["the", "cat"]
    ids = tok.encode("The cat sat.")
    assert ids == [tok.stoi["the"], tok.stoi["cat"], UNK, UNK]
    full = WordTokenizer.train("Hello, world.\nGood o'er day!", pattern)
    assert full.decode(full.encode("Hello, world.\nGood o'er day!")) == \
        "Hello, world.\nGood o'er day!"


def test_every_tokenizer_survives_a_json_round_trip(bpe):
    config = TokenizerConfig()
    for tok in (CharTokenizer.train(SAMPLE),
                WordTokenizer.train(SAMPLE, config.word_pattern, lowercase=True), bpe):
        data = json.loads(json.dumps(tok.to_dict()))
        again = tokenizer_from_dict(data)
        assert again.kind == tok.kind and again.vocab_size == tok.vocab_size
        assert again.encode(SAMPLE) == tok.encode(SAMPLE)
    with pytest.raises(UserFacingError, match="tokenizer kind is 'morse'"):
        tokenizer_from_dict({"kind": "morse"})


def test_one_stripe_is_the_contiguous_split_in_order():
    ids = np.arange(1000, dtype=np.int64)
    train, val, test = split_ids(ids, 0.1, 0.05, stripes=1)
    assert (len(train), len(val), len(test)) == (850, 100, 50)
    assert np.array_equal(np.concatenate([train, val, test]), ids)
    assert train[-1] + 1 == val[0] and val[-1] + 1 == test[0]


def test_split_takes_its_held_out_pieces_from_every_stripe_deterministically():
    ids = np.arange(100_000, dtype=np.int64)
    train, val, test = split_ids(ids, 0.1, 0.05, stripes=10)  # 10 stripes of 10,000
    assert (len(train), len(val), len(test)) == (85_000, 10_000, 5_000)
    assert np.array_equal(np.sort(np.concatenate([train, val, test])), ids)  # each id once
    # every stripe: 8,500 training ids, then 1,000 validation, then 500 test, in order
    assert np.array_equal(val[:1000], np.arange(8500, 9500))
    assert np.array_equal(test[-500:], np.arange(99_500, 100_000))
    assert np.array_equal(np.unique(val // 10_000), np.arange(10))
    assert np.all(np.diff(train) > 0) and np.all(np.diff(val) > 0)  # nothing shuffled
    again = split_ids(ids, 0.1, 0.05, stripes=10)
    assert all(np.array_equal(a, b) for a, b in zip((train, val, test), again, strict=True))


def test_short_texts_get_fewer_stripes_of_at_least_the_minimum():
    assert stripe_count(5_000, 100) == 1 and stripe_count(35_000, 100) == 3
    assert stripe_count(10_000_000, 100) == 100
    ids = np.arange(35_000, dtype=np.int64)
    train, val, test = split_ids(ids, 0.1, 0.0, stripes=100)
    assert (len(train), len(val), len(test)) == (31_500, 3_500, 0)
    assert np.array_equal(np.unique((val * 3) // 35_000), np.arange(3))


def test_the_striped_split_of_old_runs_samples_every_document_not_only_the_last():
    # two "plays" one after the other: the contiguous split held out only the second one
    first, second = "abc de\n" * 3000, "XYZ UV\n" * 3000
    corpus = SimpleNamespace(name="two", text=first + second)
    config = TokenizerConfig(split="stripes")  # what a run made before held-out documents has
    tokens = list(drive(tokenize_job(corpus, config), JobControl()))[-1].result
    held_out = tokens.tokenizer.decode(tokens.val)
    assert tokens.stripes() == 4 and len(tokens.val) == round(len(corpus.text) * 0.1)
    assert "abc" in held_out and "XYZ" in held_out
    assert "abc" in tokens.tokenizer.decode(tokens.test)
    assert "XYZ" in tokens.tokenizer.decode(tokens.test)


def test_tokenize_job_encodes_the_corpus_and_splits_it():
    corpus = SimpleNamespace(name="sample", text=SAMPLE)
    events = list(drive(tokenize_job(corpus, TokenizerConfig(val_fraction=0.2,
                                                             test_fraction=0.0)), JobControl()))
    assert any(isinstance(e, Progress) for e in events)
    assert isinstance(events[-1], JobFinished)
    tokens = events[-1].result
    assert tokens.tokenizer.decode(tokens.ids) == SAMPLE
    assert tokens.split_sizes() == {"train": len(SAMPLE) - round(len(SAMPLE) * 0.2),
                                    "val": round(len(SAMPLE) * 0.2), "test": 0}
    assert tokens.ids.dtype == np.int64 and tokens.corpus_name == "sample"
    assert tokens.token_counts.sum() == len(tokens.ids) and tokens.unknown_count() == 0
    assert tokens.token_counts[tokens.tokenizer.encode("e")[0]] == SAMPLE.count("e")


def test_tokenize_job_bpe_and_word_give_fewer_tokens_than_chars():
    corpus = SimpleNamespace(name="sample", text=SAMPLE * 4)
    sizes = {}
    for kind in ("char", "word", "bpe"):
        config = TokenizerConfig(kind=kind, bpe_vocab_size=300)
        result = list(drive(tokenize_job(corpus, config), JobControl()))[-1].result
        sizes[kind] = len(result.ids)
    assert sizes["char"] == len(SAMPLE) * 4
    assert sizes["word"] <= sizes["bpe"] < sizes["char"]


def test_tokenize_job_refuses_a_corpus_too_small_to_split_and_bad_settings():
    tiny = SimpleNamespace(name="tiny", text="ab")
    last = list(drive(tokenize_job(tiny, TokenizerConfig()), JobControl()))[-1]
    assert isinstance(last, JobFailed) and "too few to split" in last.message
    bad = TokenizerConfig(val_fraction=0.5, test_fraction=0.45)
    last = list(drive(tokenize_job(SimpleNamespace(name="s", text=SAMPLE), bad),
                      JobControl()))[-1]
    assert isinstance(last, JobFailed) and "at least 10% for training" in last.message
