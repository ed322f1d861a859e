"""A word pattern that backtracks catastrophically stops at its time limit with a message
(it hung the CLI and froze the window before), and an invalid one is named."""

from __future__ import annotations

import pytest

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus import tokenizers
from workbench.core.corpus.dataset import tokenize_job
from workbench.core.corpus.loading import Corpus
from workbench.core.jobs import JobControl, UserFacingError, drive

CATASTROPHIC = r"(a|aa)+$"  # 2^n ways to split a run of a's before the final mismatch


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(tokenizers, "PATTERN_SECONDS", 0.05)
    monkeypatch.setattr(tokenizers, "PATTERN_SECONDS_PER_CHAR", 0.0)


def test_a_catastrophic_pattern_stops_at_its_time_limit(short_limit):
    with pytest.raises(UserFacingError, match="backtracks catastrophically"):
        tokenizers.WordTokenizer.train("a" * 60 + "b", CATASTROPHIC)


def test_tokenizing_with_it_fails_the_job_with_the_message(short_limit):
    corpus = Corpus("aaa", "aaa.txt", [("aaa.txt", ("a" * 60 + "b\n") * 3)])
    config = TokenizerConfig(kind="word", word_pattern=CATASTROPHIC, val_fraction=0.1)
    last = list(drive(tokenize_job(corpus, config), JobControl()))[-1]
    assert type(last).__name__ == "JobFailed" and "took over" in last.message


def test_the_default_pattern_keeps_tokenizing_as_before():
    from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN

    words = tokenizers.WordTokenizer.train("Ô Roméo, don't!\n", DEFAULT_WORD_PATTERN)
    assert words.words("Ô Roméo, don't!\n") == ["Ô", "Roméo", ",", "don't", "!", "\n"]


def test_an_invalid_pattern_is_named_in_the_form_and_when_loaded():
    assert "not a valid regular expression" in " ".join(
        TokenizerConfig(kind="word", word_pattern="(unclosed").problems())
    with pytest.raises(UserFacingError, match="'\\(unclosed' is not a valid"):
        tokenizers.WordTokenizer([], "(unclosed", False)
