"""Fuzzing the task data readers a user feeds (hypothesis): CoNLL-U, text<TAB>label, pairs for
sequence to sequence and one sentence a line. Whatever the bytes, a reader returns its data or
raises `UserFacingError` with a message; nothing else escapes. Plus the damage a real file
meets (a CoNLL-U file cut short, lines shuffled, a column lost) and the size limit on reading."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.data.conllu import read_conllu
from workbench.core.data.labelled import read_labelled
from workbench.core.data.pairs import read_pairs
from workbench.core.data.sentences import read_sentences
from workbench.core.jobs import UserFacingError
from workbench.core.resources import dataset_path

FUZZ = settings(max_examples=80, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# pieces of the formats: CoNLL-U fields and comments, labels, tabs, ranges, damage
PIECES = st.sampled_from([
    "1", "2", "1-2", "1.1", "_", "NOUN", "VERB", "NN", "the", "dog", "pos", "neg", "0", "1",
    "\t", "\t", "\t", "\n", "\n", "\r\n", "# sent_id = 1", "# text = the dog", " ", "",
    "\x00", "é", "\ufeff", "label", "text", "3-1", "-1", "10", "x" * 30])
LINES = st.lists(PIECES, max_size=60).map("".join)
RAW = st.one_of(st.binary(max_size=500), LINES.map(lambda t: t.encode("utf-8")),
                LINES.map(lambda t: t.encode("utf-16")),
                LINES.map(lambda t: t.encode("latin-1", "replace")))


def _returns_or_says_why(read, path):
    try:
        return read(path)
    except UserFacingError as exc:
        assert str(exc).strip()
        return None


@FUZZ
@given(data=RAW, column=st.sampled_from(["upos", "xpos"]))
def test_conllu_reader(tmp_path, data, column):
    path = tmp_path / "f.conllu"
    path.write_bytes(data)
    tagged = _returns_or_says_why(lambda p: read_conllu(p, column), path)
    if tagged is not None:
        assert tagged.sentences and all(len(s.words) == len(s.tags) > 0 for s in tagged.sentences)


@FUZZ
@given(data=RAW, text_column=st.sampled_from([0, 1, "text", "sentence"]),
       label_column=st.sampled_from([-1, 1, 2, "label"]),
       header=st.sampled_from(["auto", "yes", "no"]))
def test_labelled_reader(tmp_path, data, text_column, label_column, header):
    path = tmp_path / "f.tsv"
    path.write_bytes(data)
    labelled = _returns_or_says_why(
        lambda p: read_labelled(p, text_column, label_column, header), path)
    if labelled is not None:
        assert labelled.examples and all(e.label for e in labelled.examples)


@FUZZ
@given(data=RAW, columns=st.sampled_from([(1, 2), (2, 1), (2, 4), (1, 1)]),
       skip_header=st.booleans())
def test_pairs_reader(tmp_path, data, columns, skip_header):
    path = tmp_path / "pairs.tsv"
    path.write_bytes(data)
    pairs = _returns_or_says_why(lambda p: read_pairs(p, *columns, skip_header), path)
    if pairs is not None:
        assert all(isinstance(s, str) and isinstance(t, str) for s, t in pairs)


@FUZZ
@given(data=RAW, min_words=st.integers(1, 4))
def test_sentences_reader(tmp_path, data, min_words):
    path = tmp_path / "s.txt"
    path.write_bytes(data)
    sentences = _returns_or_says_why(lambda p: read_sentences(p, min_words), path)
    if sentences is not None:
        assert all(len(line.split()) >= min_words for line in sentences.lines)


def _ewt_head(lines: int) -> list[str]:
    source = sorted(dataset_path("ud-english-ewt").glob("*.conllu"))[0]
    with open(source, encoding="utf-8") as handle:
        return [next(handle).rstrip("\n") for _ in range(lines)]


@pytest.mark.parametrize("damage", ["cut mid-line", "column lost", "lines shuffled",
                                    "tabs become spaces"])
def test_damaged_treebank_names_the_line(tmp_path, damage):
    """The shipped EWT file, damaged as files get damaged: the reader refuses it and its
    message names a line of the file, so the user can find the damage."""
    import random

    lines = _ewt_head(400)
    if damage == "cut mid-line":
        text = "\n".join(lines)[:-17]
    elif damage == "column lost":
        lines[57] = "\t".join(lines[57].split("\t")[:5])
        text = "\n".join(lines)
    elif damage == "lines shuffled":
        random.Random(3).shuffle(lines)
        text = "\n".join(lines)
    else:
        text = "\n".join(line.replace("\t", " ") for line in lines)
    path = tmp_path / "damaged.conllu"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserFacingError, match=r"damaged\.conllu:\d+"):
        read_conllu(path)


def test_data_file_over_the_corpus_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_CORPUS_MB", "1")
    path = tmp_path / "big.txt"
    path.write_bytes(b"a sentence of words\n" * 60_000)  # 1.2 MB
    with pytest.raises(UserFacingError, match="larger than 1 MB"):
        read_sentences(path)
    path.write_bytes(b"a sentence of words\n" * 40_000)  # 0.8 MB reads
    assert len(read_sentences(path).lines) == 40_000


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    import os

    fifo = tmp_path / "pipe.tsv"
    os.mkfifo(fifo)
    with pytest.raises(UserFacingError, match="named pipe"):
        read_labelled(fifo)
