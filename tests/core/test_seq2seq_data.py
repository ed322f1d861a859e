"""Pairs for sequence to sequence: generated tasks are the same for the same seed, held-out
examples are never trained on, files of pairs load their chosen columns or nothing at all (the
error names the line), and batches are padded with masks."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from workbench.core.config.seq2seq import Seq2seqTaskConfig
from workbench.core.corpus.tokenizers import BOS, EOS, PAD
from workbench.core.data.generated import GENERATORS, generate, held_out_split
from workbench.core.data.pairs import read_pairs
from workbench.core.data.seq2seq_data import (
    IGNORE_INDEX,
    Side,
    pair_batch,
    prepare_pairs,
)
from workbench.core.events import Notice
from workbench.core.jobs import UserFacingError
from workbench.core.tasks.sequences import epoch_rows


def run_to_end(steps, seen):
    """What a step generator returns, each of its events handed to `seen`."""
    while True:
        try:
            seen(next(steps))
        except StopIteration as done:
            return done.value


@pytest.mark.parametrize("name", list(GENERATORS))
def test_a_generated_task_is_the_same_for_the_same_seed(name):
    first = generate(name, 300, 3 if name == "dates" else 8, seed=5)
    assert first == generate(name, 300, 3 if name == "dates" else 8, seed=5)
    assert first != generate(name, 300, 3 if name == "dates" else 8, seed=6)
    assert len(first) == 300 and all(s and t for s, t in first)


def test_generated_pairs_are_right():
    for source, target in generate("dates", 500, 3, 0):
        datetime.date.fromisoformat(target)  # an ISO date
        assert target[:4] in source or target[2:4] in source  # the year, or its two digits
    for source, target in generate("reverse", 100, 12, 0):
        assert target == source[::-1] and 1 <= len(source) <= 12
    for source, target in generate("sort", 100, 12, 0):
        assert target == "".join(sorted(source))
    for source, target in generate("addition", 100, 4, 0):
        a, b = source.split("+")
        assert int(target) == int(a) + int(b) and len(a) <= 4
    assert all(s == t for s, t in generate("copy", 50, 9, 0))


def test_difficulty_adds_date_formats():
    easy = {s[0].isdigit() for s, _ in generate("dates", 300, 1, 0)}
    hard = [s for s, _ in generate("dates", 300, 3, 0)]
    assert easy == {True}  # numeric formats only
    assert any("day" in s.lower() for s in hard) and any(s[0].isalpha() for s in hard)


def test_held_out_dates_are_never_trained_on_in_any_format():
    pairs = generate("dates", 3000, 3, 0)
    train, val = held_out_split("dates", pairs, 200, 0)
    assert len(val) == 200 and len({t for _, t in val}) == 200
    assert not {t for _, t in val} & {t for _, t in train}
    assert len(train) + 200 <= len(pairs)


def _write(tmp_path, text: str | bytes, name="pairs.tsv"):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


def test_a_file_with_more_columns_loads_the_chosen_ones(tmp_path):
    """Tatoeba-style: id, sentence, id, translation."""
    path = _write(tmp_path, "eng\tsrc\tfra\ttgt\n1\tHi.\t77\tSalut.\n\n2\tRun!\t78\tCours !\r\n")
    assert read_pairs(path, 2, 4, skip_header=True) == [("Hi.", "Salut."), ("Run!", "Cours !")]


@pytest.mark.parametrize("content, message", [
    ("a\tb\nc\n", r"line 2: 1 tab-separated column, but the source is column 1"),
    ("a\tb\n\t b\n", r"line 2: the source \(column 1\) is empty"),
    ("a\tb\nc\t  \n", r"line 2: the target \(column 2\) is empty"),
    (b"a\tb\nc\t\xff\xfe\n", r"line 2: not UTF-8 text"),
    ("\n\n", "holds no pairs"),
])
def test_malformed_files_name_the_line_and_load_nothing(tmp_path, content, message):
    with pytest.raises(UserFacingError, match=message) as error:
        read_pairs(_write(tmp_path, content))
    assert "pairs.tsv" in str(error.value)


def test_a_missing_file_and_equal_columns_are_refused(tmp_path):
    with pytest.raises(UserFacingError, match="does not exist"):
        read_pairs(tmp_path / "nope.tsv")
    with pytest.raises(UserFacingError, match="both column 2"):
        read_pairs(_write(tmp_path, "a\tb\n"), 2, 2)


def test_prepare_counts_what_the_length_limits_drop_and_tokenizes_each_side(tmp_path):
    lines = [f"{'x' * n}\t{w}" for n, w in zip(range(1, 13), ["one two", "three"] * 6,
                                                strict=True)]
    path = _write(tmp_path, "\n".join(lines) + "\n")
    config = Seq2seqTaskConfig(data="file", path=str(path), held_out=2, max_source_length=8,
                               target_tokens="word")
    events = []
    data = run_to_end(prepare_pairs(config), events.append)
    assert data.dropped == 4  # sources of 9-12 characters
    assert [e for e in events if isinstance(e, Notice)][0].text.startswith("4 pairs longer")
    assert len(data.train_source) + len(data.val_source) == 8
    assert data.target_tokenizer.kind == "word" and data.source_tokenizer.kind == "char"
    # word targets keep how they were spaced, so outputs are detokenised as they were split
    assert set(data.vocabulary()) == {"source", "target", "target_spacing"}
    again = run_to_end(prepare_pairs(config, data.vocabulary()), lambda e: None)
    assert again.source_tokenizer == data.source_tokenizer  # a resumed run keeps its ids
    assert again.target_spacing == data.target_spacing


def test_a_batch_is_padded_with_masks_and_bos_eos():
    source = Side.of([[7, 8, 9], [5]])
    target = Side.of([[10, 11], [12, 13, 14]])
    arrays = pair_batch(source, target, np.array([0, 1]))
    assert arrays["source"].tolist() == [[7, 8, 9], [5, PAD, PAD]]
    assert arrays["source_mask"].tolist() == [[True] * 3, [True, False, False]]
    assert arrays["target_in"].tolist() == [[BOS, 10, 11, PAD], [BOS, 12, 13, 14]]
    assert arrays["target_out"].tolist() == [[10, 11, EOS, IGNORE_INDEX], [12, 13, 14, EOS]]
    assert arrays["target_mask"].tolist() == [[True, True, True, False], [True] * 4]


def test_training_rows_are_a_pure_function_of_the_step_and_cover_each_epoch():
    first_epoch = np.concatenate([epoch_rows(10, 4, step, 3) for step in range(2)])
    assert len(set(first_epoch.tolist())) == 8  # no repeat within an epoch
    assert epoch_rows(10, 4, 7, 3).tolist() == epoch_rows(10, 4, 7, 3).tolist()
    crossing = epoch_rows(10, 4, 2, 3)  # rows 8, 9 of epoch 0, then 0, 1 of epoch 1
    assert len(crossing) == 4
