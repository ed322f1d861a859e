"""Readers of labelled sentences (text<TAB>label), CoNLL-U and one-sentence-a-line text: the
well-formed cases a user brings, and each malformed case named with its line."""

from __future__ import annotations

import pytest

from workbench.core.data.conllu import parse_conllu, read_conllu
from workbench.core.data.labelled import parse_labelled, read_labelled
from workbench.core.data.sentences import read_sentences
from workbench.core.data.splits import split_indices, unseen_labels, unseen_report
from workbench.core.data.text_files import MalformedDataError
from workbench.core.resources import dataset_path


def lines(text: str) -> list[tuple[str, str]]:
    return [(f"f:{i}", line) for i, line in enumerate(text.split("\n"), start=1)]


def test_text_tab_label_with_any_label_set():
    data = parse_labelled(lines("great film\tpos\nawful\tneg\n\nso-so\tneutral\n"), "f")
    assert [(e.text, e.label) for e in data.examples] == [
        ("great film", "pos"), ("awful", "neg"), ("so-so", "neutral")]
    assert data.labels == ["neg", "neutral", "pos"] and data.header is None


def test_a_header_row_is_found_and_columns_chosen_by_name_or_number():
    text = "id\tsentence\tsource\tlabel\n1\tgood\tweb\t1\n2\tbad\tweb\t0\n3\tok\tweb\t1\n"
    data = parse_labelled(lines(text), "f", text_column="sentence", label_column="label")
    assert data.header == ("id", "sentence", "source", "label")
    assert [(e.text, e.label) for e in data.examples] == [("good", "1"), ("bad", "0"),
                                                          ("ok", "1")]
    by_number = parse_labelled(lines(text), "f", text_column=1, label_column=2)
    assert {e.label for e in by_number.examples} == {"web"}
    forced = parse_labelled(lines("a\tx\nb\ty\n"), "f", header="yes")
    assert [e.text for e in forced.examples] == ["b"]


@pytest.mark.parametrize("text,message", [
    ("good\t1\nno tab here\nbad\t0\n", "f:2: 1 column, expected 2"),
    ("good\t1\nbad\t0\textra\n", "f:2: 3 columns, expected 2"),
    ("good\t1\n\t0\n", "f:2: the text is empty"),
    ("good\t1\nbad\t \n", "f:2: the label is empty"),
    ("just text\nmore text\n", "no TAB on the first line"),
    ("\n\n", "holds no labelled lines"),
])
def test_malformed_labelled_lines_are_named(text, message):
    with pytest.raises(MalformedDataError, match=message) as caught:
        parse_labelled(lines(text), "f")
    assert "nothing was loaded" in str(caught.value) or "line" in str(caught.value)


def test_columns_that_do_not_exist_are_refused():
    with pytest.raises(MalformedDataError, match="no column 'text'"):
        parse_labelled(lines("sentence\tlabel\na\t1\nb\t0\nc\t1\n"), "f", text_column="text")
    with pytest.raises(MalformedDataError, match="column 5 does not exist"):
        parse_labelled(lines("a\t1\nb\t0\n"), "f", label_column=5)


def test_many_bad_lines_are_counted_not_all_listed():
    text = "ok\t1\n" + "bad\n" * 12
    with pytest.raises(MalformedDataError, match="12 malformed lines.*and 7 more lines"):
        parse_labelled(lines(text), "f")


def test_the_shipped_sentiment_folder_reads_as_3000_sentences_without_its_readme():
    data = read_labelled(dataset_path("sentiment-labelled-sentences"))
    assert len(data.examples) == 3000
    assert data.counts() == {"0": 1500, "1": 1500}


CONLLU = """# sent_id = 1
# text = I didn't go.
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_
2-3\tdidn't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdid\tdo\tAUX\tVBD\t_\t4\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_
4\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
4.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t0:root\tCopyOf=4
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_

# text = Hello
1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_"""


def test_conllu_words_tags_multiword_tokens_empty_nodes_and_comments():
    data = parse_conllu(lines(CONLLU), "f")
    first, second = data.sentences
    assert first.words == ("I", "did", "n't", "go", ".")  # the range line is not a word
    assert first.tags == ("PRON", "AUX", "PART", "VERB", "PUNCT")  # the empty node neither
    assert first.text == "I didn't go." and first.source == "f:1"
    assert second.words == ("Hello",)  # the last sentence needs no blank line after it
    xpos = parse_conllu(lines(CONLLU), "f", column="xpos")
    assert xpos.sentences[0].tags == ("PRP", "VBD", "RB", "VB", ".")


@pytest.mark.parametrize("bad_line,message", [
    ("2\tgo\tgo\tVERB", "f:4: 4 fields, expected 10"),
    ("x\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "f:4: 'x' is not a word ID"),
    ("3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "f:4: word ID 3 out of order"),
    ("2\tgo\tgo\t_\tVB\t_\t0\troot\t_\t_", "f:4: the UPOS tag is missing"),
    ("2\t\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "f:4: the form is missing"),
])
def test_malformed_conllu_lines_are_named(bad_line, message):
    text = "# text = x\n1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n" + bad_line + "\n"
    text = "# c\n" + text
    with pytest.raises(MalformedDataError, match=message):
        parse_conllu(lines(text), "f")


def test_conllu_without_sentences_is_refused():
    with pytest.raises(MalformedDataError, match="holds no sentences"):
        parse_conllu(lines("\n\n"), "f")
    with pytest.raises(MalformedDataError, match="comments but no word lines"):
        parse_conllu(lines("# text = a\n\n1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n"), "f")


def test_the_shipped_ewt_files():
    folder = dataset_path("ud-english-ewt")
    dev = read_conllu(folder / "en_ewt-ud-dev.conllu")
    assert len(dev.sentences) == 2001 and len(dev.tags) == 17
    assert dev.token_count() == 25_147


def test_sentences_one_a_line(tmp_path):
    (tmp_path / "a.txt").write_text("To be, or not to be\n\nACT I\nthat is the question\n")
    (tmp_path / "README.txt").write_text("not data\n")
    read = read_sentences(tmp_path, min_words=3)
    assert read.lines == ("To be, or not to be", "that is the question")
    assert read.sources == ("a.txt:1", "a.txt:4") and read.dropped_short == 1
    with pytest.raises(MalformedDataError, match="no sentences"):
        read_sentences(tmp_path, min_words=10)


def test_a_file_that_is_not_utf8_names_its_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good\t1\ncaf\xe9\t0\n")
    with pytest.raises(MalformedDataError, match="bad.txt:2 is not UTF-8"):
        read_labelled(path)


def test_splits_are_seeded_and_labels_seen_only_in_test_are_reported():
    train, val, test = split_indices(100, 0.1, 0.2, seed=3)
    assert (len(train), len(val), len(test)) == (70, 10, 20)
    assert sorted([*train, *val, *test]) == list(range(100))
    again = split_indices(100, 0.1, 0.2, seed=3)
    assert all((a == b).all() for a, b in zip((train, val, test), again, strict=True))
    unseen = unseen_labels(["a", "b", "a"], ["a", "c", "c", "d"])
    assert unseen == {"c": 2, "d": 1}
    report = unseen_report(unseen, 4, "tag", "test")
    assert "c (2), d (1)" in report and "3 of 4 test items (75.0%)" in report
    assert unseen_report({}, 4) == ""
