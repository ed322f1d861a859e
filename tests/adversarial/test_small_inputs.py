"""Red-team family 'small inputs' (issue 30, defect 15): an empty word pattern, nan settings,
a lone surrogate, a codec that is not a text encoding, a pairs file that is a folder or a
pipe, and a pairs file of a few repeated pairs each get one true message."""

from __future__ import annotations

import argparse
import math
import os
from types import SimpleNamespace

import pytest

from workbench.app.cli_types import finite_float
from workbench.app.generate_cli import build_parser as generate_parser
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.encodings import normalize_encoding
from workbench.core.corpus.loading import load_corpus
from workbench.core.corpus.tokenizers import BpeTokenizer, CharTokenizer, WordTokenizer
from workbench.core.data.pairs import read_pairs
from workbench.core.data.seq2seq_data import load_pairs
from workbench.core.jobs import UserFacingError

TEXT = "the cat sat on the mat. the dog sat on the log.\n" * 20


@pytest.mark.parametrize("pattern, message", [
    ("", "matches an empty word"),
    ("a*", "matches an empty word"),
    (r"\w+|", "matches an empty word"),
    (r"(\w)(\w)", "2 capturing groups"),
])
def test_a_word_pattern_that_cannot_give_words_is_refused_by_the_settings(pattern, message):
    problems = TokenizerConfig(kind="word", word_pattern=pattern).problems()
    assert any(message in problem for problem in problems), problems


def test_the_default_and_a_one_group_pattern_pass():
    assert TokenizerConfig(kind="word").problems() == []
    assert TokenizerConfig(kind="word", word_pattern=r"(\w+)").problems() == []


def test_zero_width_matches_are_no_tokens_and_a_pattern_of_none_says_so():
    assert WordTokenizer.train(TEXT, r"\b|\w+").words("the cat") == ["the", "cat"]
    with pytest.raises(UserFacingError, match="finds no word in this text"):
        WordTokenizer.train(TEXT, r"(?=t)")


@pytest.mark.parametrize("field", ["temperature", "top_p", "length_penalty"])
def test_nan_fails_the_range_check(field):
    problems = GenerationConfig(**{field: math.nan}).problems()
    assert any("must be a number (got nan)" in problem for problem in problems), problems


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "NaN", "x"])
def test_command_line_numbers_must_be_finite(text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a"):
        finite_float(text)


@pytest.mark.parametrize("argv", [["run", "--temperature", "nan"], ["run", "--temperature",
                                                                    "inf"]])
def test_generate_refuses_a_nan_temperature_as_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        generate_parser().parse_args(argv)
    assert exit_.value.code == 2
    assert "not a finite number" in capsys.readouterr().err


def test_a_nan_zoom_falls_back_to_normal_size():
    from workbench.qt.zoom import _clamp

    assert _clamp(math.nan) == 1.0 and _clamp(math.inf) == 1.0 and _clamp(1.6) == 1.6


@pytest.fixture(scope="module")
def bpe():
    return BpeTokenizer.train([TEXT], 300)


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_a_lone_surrogate_in_a_prompt_is_one_message(kind, bpe):
    tokenizer = {"char": lambda: CharTokenizer.train(TEXT),
                 "word": lambda: WordTokenizer.train(TEXT, r"\w+"), "bpe": lambda: bpe}[kind]()
    with pytest.raises(UserFacingError, match="U\\+DC80 at character 3: half of a character"):
        tokenizer.encode_prompt("ab\udc80c")


@pytest.mark.parametrize("kind", ["char", "bpe"])
def test_a_lone_surrogate_in_text_to_encode_is_one_message(kind, bpe):
    tokenizer = CharTokenizer.train(TEXT) if kind == "char" else bpe
    with pytest.raises(UserFacingError, match="lone surrogate"):
        tokenizer.encode("the \ud800 cat")


@pytest.mark.parametrize("codec", ["base64", "rot13", "zlib", "uu", "hex", "bz2", "quopri"])
def test_a_codec_that_is_not_a_text_encoding_is_refused(codec, tmp_path):
    with pytest.raises(ValueError, match="is not a text encoding"):
        normalize_encoding(codec)
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world\n")
    with pytest.raises(UserFacingError, match="is not a text encoding"):
        load_corpus(corpus, encoding=codec)


@pytest.mark.parametrize("codec", ["utf-8", "latin-1", "cp1252", "utf-16", "idna", "auto"])
def test_text_encodings_still_pass(codec):
    normalize_encoding(codec)


@pytest.mark.parametrize("kind, make", [
    ("a folder", lambda p: p.mkdir()),
    ("a named pipe", lambda p: os.mkfifo(p)),
])
def test_a_pairs_path_that_is_no_file_is_named_as_what_it_is(tmp_path, kind, make):
    path = tmp_path / "pairs"
    make(path)
    with pytest.raises(UserFacingError, match=f"is {kind}") as raised:
        read_pairs(path)
    assert "does not exist" not in str(raised.value)


def _pairs_config(path, held_out):
    return SimpleNamespace(data="file", path=str(path), source_column=1, target_column=2,
                           skip_header=False, held_out=held_out, data_seed=0)


@pytest.mark.parametrize("distinct, repeats, message", [
    (4, 40, "only 4 different sources.*Lower 'Held-out examples' below 4"),
    (1, 200, "only 1 different source\\..*Add pairs with other sources"),
])
def test_a_few_repeated_pairs_say_why_nothing_is_left_to_train_on(tmp_path, distinct, repeats,
                                                                 message):
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"src {i}\ttgt {i}\n" for _ in range(repeats)
                            for i in range(distinct)))
    with pytest.raises(UserFacingError, match=message) as raised:
        load_pairs(_pairs_config(path, held_out=10))
    assert "length limits" not in str(raised.value)


def test_a_few_repeated_pairs_train_when_fewer_are_held_out(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"src {i}\ttgt {i}\n" for _ in range(40) for i in range(4)))
    train, val, _, _ = load_pairs(_pairs_config(path, held_out=1))
    assert len(val) == 1 and len(train) == 120
