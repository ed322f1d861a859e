"""Red-team family 'label and tag counts' (issue 30, defect 6): a label column that cannot be
a set of classes is refused before anything is built, and a large confusion matrix is logged
as its non-zero cells, not as a K×K list on every validation line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.core.config.encoder_tasks import ClassifyTaskConfig
from workbench.core.data.label_limits import MAX_CLASSES, check_class_count
from workbench.core.jobs import JobControl, UserFacingError, run_to_end
from workbench.core.metrics import ClassScores, class_scores
from workbench.core.tasks.classify import ClassifyTask


def test_the_shipped_sentiment_set_with_its_columns_swapped_is_refused():
    config = ClassifyTaskConfig(dataset="sentiment", text_column="-1", label_column="0")
    with pytest.raises(UserFacingError, match=r"Column 0 has [\d,]+ distinct values.*is it "
                                              r"the text\? Swap"):
        run_to_end(ClassifyTask.examples(config, None, JobControl()))


@pytest.mark.slow
def test_twenty_thousand_labels_are_refused_before_any_allocation(tmp_path):
    path = tmp_path / "many.tsv"
    # each label twice, so it does not look like text: refused by the count alone
    path.write_text("".join(f"sentence {i % 20_000}\tlabel{i % 20_000}\n"
                            for i in range(40_000)))
    config = ClassifyTaskConfig(dataset="file", path=str(path))
    with pytest.raises(UserFacingError, match="20,000 distinct labels; at most"):
        run_to_end(ClassifyTask.examples(config, None, JobControl()))


def test_a_few_labels_and_a_small_set_with_a_label_a_line_pass():
    check_class_count(["pos", "neg"] * 50)
    check_class_count([f"mood{i}" for i in range(6)])  # a toy file: one line per label
    check_class_count([f"t{i % MAX_CLASSES}" for i in range(4 * MAX_CLASSES)], "tag",
                      text_like=False)


@pytest.mark.slow
def test_a_large_confusion_matrix_is_logged_as_its_cells_and_reads_back_the_same():
    rng = np.random.default_rng(0)
    classes = 5_000
    true = rng.integers(0, classes, 2_000)
    predicted = np.where(rng.random(2_000) < 0.7, true, rng.integers(0, classes, 2_000))
    scores = class_scores(true, predicted, tuple(f"T{i}" for i in range(classes)))
    line = json.dumps(scores.to_dict())
    assert len(line) < 200_000  # the dense list was about 50 MB (5,000 × 5,000 numbers)
    back = ClassScores.from_dict(json.loads(line))
    assert np.array_equal(back.confusion, scores.confusion)
    assert back.accuracy == scores.accuracy and back.macro_f1 == scores.macro_f1


def test_a_small_confusion_matrix_stays_dense_for_older_readers():
    scores = class_scores(np.array([0, 1, 1]), np.array([0, 1, 0]), ("a", "b"))
    assert scores.to_dict()["confusion"] == [[1, 0], [1, 1]]
