"""Corpus statistics against numbers counted by hand, and on the shipped corpus."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.corpus.loading import load_corpus
from workbench.core.corpus.statistics import corpus_statistics
from workbench.core.resources import default_corpus_path


def test_small_text_matches_hand_counts():
    stats = corpus_statistics(["The cat sat.\nThe dog sat!\n", "o'er the hill"])
    assert stats.characters == 26 + 13
    assert stats.documents == 2
    assert stats.lines == 3  # two in the first document, one unterminated in the second
    # the, cat, sat, the, dog, sat, o'er, the, hill
    assert stats.words == 9
    assert stats.word_vocab == 6 and stats.type_token_ratio == pytest.approx(6 / 9)
    assert stats.top_words[:3] == [("the", 3), ("sat", 2), ("cat", 1)]
    ranks, counts = stats.zipf()
    assert ranks.tolist() == [1, 2, 3, 4, 5, 6] and counts.tolist() == [3, 2, 1, 1, 1, 1]
    # T h e space c a t s . newline d o g ! ' r l i (capital T once, lower t elsewhere)
    inventory = dict(stats.char_inventory)
    assert stats.char_vocab == len(inventory) == 18
    assert inventory[" "] == 6 and inventory["T"] == 2 and inventory["\n"] == 2


def test_empty_documents_give_zero_ratio_not_an_error():
    stats = corpus_statistics([""])
    assert (stats.words, stats.lines, stats.type_token_ratio, stats.zipf_slope()) == (0, 0, 0, 0)


def test_shakespeare_follows_zipf_roughly():
    stats = load_corpus(default_corpus_path()).stats
    assert stats.documents == 8 and stats.characters > 1_000_000
    assert stats.top_words[0][0] == "the"
    assert np.all(np.diff(stats.word_counts) <= 0)
    assert -1.6 < stats.zipf_slope() < -0.9


def test_pacer_allows_one_progress_event_per_interval():
    from workbench.core.corpus.text_chunks import Pacer, text_chunks

    pacer = Pacer(rate=10)
    assert pacer.due() and not pacer.due()
    pacer.next = 0.0  # as if the interval had passed
    assert pacer.due()
    text = "line\n" * 100_000
    pieces = list(text_chunks(text, size=1000))
    assert "".join(pieces) == text and all(p.endswith("\n") for p in pieces)
