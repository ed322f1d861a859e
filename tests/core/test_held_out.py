"""Held-out text is text the model never trains on or beside: whole documents of a corpus of
several, long contiguous stretches of a single text (core/corpus/held_out.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.dataset import tokenize_job
from workbench.core.corpus.held_out import (
    LINE_SNAP,
    MIN_STRETCH_CHARS,
    choose_documents,
    plan_held_out,
    stretch_bounds,
)
from workbench.core.corpus.loading import Corpus
from workbench.core.events import JobFailed
from workbench.core.jobs import JobControl, UserFacingError, drive

# five "plays", each with words and letters no other one has, so a token tells its document
PLAYS = [(f"play_{name}.txt", "".join(f"{name.upper()} {name}{i} speaks to {name}.\n"
                                      for i in range(120)))
         for name in ("ariel", "brutus", "cassio", "duncan", "edgar")]


def folder_corpus(plays=PLAYS) -> Corpus:
    return Corpus(name="plays", path="/plays", documents=list(plays))


def tokenized(corpus, config: TokenizerConfig, seed: int = 1234):
    *_, last = drive(tokenize_job(corpus, config, seed=seed), JobControl())
    assert not isinstance(last, JobFailed), last
    return last.result


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_no_document_and_no_character_is_in_two_splits(kind):
    corpus = folder_corpus()
    config = TokenizerConfig(kind=kind, bpe_vocab_size=300, val_fraction=0.2, test_fraction=0.2)
    tokens = tokenized(corpus, config)
    recorded = tokens.config
    val, test = set(recorded.validation_documents), set(recorded.test_documents)
    assert len(val) == 1 and len(test) == 1 and not val & test
    texts = dict(corpus.documents)
    names = [name for name, _ in corpus.documents]
    for split, ids in (("val", tokens.val), ("test", tokens.test), ("train", tokens.train)):
        held = {"val": val, "test": test, "train": set(names) - val - test}[split]
        decoded = tokens.tokenizer.decode(ids)
        for name in names:
            marker = name[5:-4] + "0 "  # e.g. "ariel0 ": in its own document only
            assert (marker in decoded) == (name in held), (kind, split, name)
        if kind != "word":  # char and byte-level BPE give the text back exactly
            expected = "\n".join(texts[n] for n in names if n in held)
            assert decoded.strip("\n") == expected.strip("\n")
    # the pieces cover the text once: every character in exactly one split
    pieces = tokens.held_out.pieces
    assert pieces[0].start == 0 and pieces[-1].end == len(corpus.text)
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:], strict=False))
    assert len(tokens.train) + len(tokens.val) + len(tokens.test) == len(tokens.ids)
    for split, ids in (("train", tokens.train), ("val", tokens.val), ("test", tokens.test)):
        ranges = tokens.split_ranges(split)  # where benchmarks find the held-out text
        assert np.array_equal(np.concatenate([tokens.ids[a:b] for a, b in ranges]), ids)


def test_the_seed_draws_the_documents_reproducibly_and_another_seed_others():
    sizes = [1000] * 20
    first = choose_documents(sizes, 0.1, 0.1, seed=7)
    assert first == choose_documents(sizes, 0.1, 0.1, seed=7)
    assert len(first[0]) == 2 and len(first[1]) == 2 and not set(first[0]) & set(first[1])
    others = {tuple(map(tuple, choose_documents(sizes, 0.1, 0.1, seed=s))) for s in range(10)}
    assert len(others) > 5
    corpus = folder_corpus()
    config = TokenizerConfig(val_fraction=0.2, test_fraction=0.2)
    picks = {plan_held_out(corpus, config, seed).validation_documents for seed in range(12)}
    assert len(picks) > 1
    again = tokenized(corpus, config, seed=3)
    assert np.array_equal(tokenized(corpus, config, seed=3).val, again.val)


def test_at_least_one_document_each_and_one_left_for_training():
    # three documents, each far above a 5% share: one each, none overshooting when one fits
    assert [len(s) for s in choose_documents([500, 600, 700], 0.05, 0.05, seed=1)] == [1, 1]
    val, test = choose_documents([100, 100, 100, 100, 5000], 0.1, 0.05, seed=2)
    assert 4 not in val + test  # the huge one would take far more than its share
    val, test = choose_documents([10, 10, 10], 0.45, 0.4, seed=0)
    assert len(val) + len(test) == 2  # one document stays for training


def test_named_documents_are_held_out_and_bad_names_are_refused():
    corpus = folder_corpus()
    config = TokenizerConfig(validation_documents=("play_edgar.txt",),
                             test_documents=("play_ariel.txt", "play_cassio.txt"))
    tokens = tokenized(corpus, config)
    assert tokens.config.validation_documents == ("play_edgar.txt",)
    assert tokens.config.test_documents == ("play_ariel.txt", "play_cassio.txt")
    assert tokens.tokenizer.decode(tokens.val).startswith("EDGAR edgar0")
    with pytest.raises(UserFacingError, match="'hamlet.txt' is not in this corpus"):
        plan_held_out(corpus, TokenizerConfig(validation_documents=("hamlet.txt",)), 1)
    with pytest.raises(UserFacingError, match="keep at least one"):
        plan_held_out(corpus, TokenizerConfig(
            validation_documents=tuple(n for n, _ in PLAYS[:3]),
            test_documents=tuple(n for n, _ in PLAYS[3:])), 1)
    assert "cannot be both" in " ".join(TokenizerConfig(
        validation_documents=("a",), test_documents=("a",)).problems())


def one_long_text(lines: int = 16_000) -> str:
    return "".join(f"line {i} of the only document, read once.\n" for i in range(lines))


def test_a_single_document_holds_out_long_contiguous_stretches():
    text = one_long_text()  # ~690,000 characters: three regions of 10% + 10% held out
    val, test = stretch_bounds(text, 0.1, 0.1, seed=5)
    pairs = [(val[i], val[i + 1], "val") for i in range(0, len(val), 2)]
    pairs += [(test[i], test[i + 1], "test") for i in range(0, len(test), 2)]
    assert 2 <= len(val) // 2 <= 4 and len(val) == len(test)
    for a, b, _ in pairs:
        assert b - a >= MIN_STRETCH_CHARS  # tens of thousands of characters each
        assert text[a - 1] == "\n"  # from the start of a line
    pairs.sort()
    assert all(p[1] <= q[0] for p, q in zip(pairs, pairs[1:], strict=False))  # no overlap
    held = sum(b - a for a, b, _ in pairs)
    assert abs(held - 0.2 * len(text)) < 6 * LINE_SNAP
    assert stretch_bounds(text, 0.1, 0.1, seed=5) == (val, test)
    assert stretch_bounds(text, 0.1, 0.1, seed=6) != (val, test)
    corpus = SimpleNamespace(name="one.txt", text=text)
    tokens = tokenized(corpus, TokenizerConfig(val_fraction=0.1, test_fraction=0.1), seed=5)
    assert tokens.held_out.kind == "stretches"
    assert tokens.config.validation_stretches == tuple(val)
    assert tokens.tokenizer.decode(tokens.val) == "".join(
        text[val[i]:val[i + 1]] for i in range(0, len(val), 2))


def test_a_short_text_gets_one_contiguous_tail_cut():
    text = one_long_text(300)
    val, test = stretch_bounds(text, 0.1, 0.05, seed=5)
    n = len(text)
    assert test == [n - round(n * 0.05), n]
    assert val == [test[0] - round(n * 0.1), test[0]]


def test_recorded_stretches_are_used_again_and_checked_against_the_text():
    text = one_long_text(300)
    corpus = SimpleNamespace(name="one.txt", text=text)
    config = TokenizerConfig(validation_stretches=(100, 900), test_stretches=(2000, 2600))
    tokens = tokenized(corpus, config)
    assert tokens.tokenizer.decode(tokens.val) == text[100:900]
    assert tokens.tokenizer.decode(tokens.test) == text[2000:2600]
    with pytest.raises(UserFacingError, match="does not fit this text"):
        plan_held_out(corpus, TokenizerConfig(validation_stretches=(100, 10**9)), 1)
