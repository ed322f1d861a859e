"""Classification metrics against a confusion matrix worked out by hand."""

from __future__ import annotations

import numpy as np

from workbench.core.metrics import (
    ClassScores,
    class_scores,
    confusion_matrix,
    masked_items,
    most_frequent_baseline,
    per_word_majority_baseline,
)


def test_against_a_hand_computed_confusion_matrix():
    # classes a=0, b=1, c=2; ten items
    true = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    predicted = np.array([0, 0, 1, 2, 1, 1, 0, 2, 2, 1])
    # rows true, columns predicted:   a  b  c
    expected = np.array([[2, 1, 1],  # a: 2 right, one as b, one as c
                         [1, 2, 0],  # b
                         [0, 1, 2]])  # c
    np.testing.assert_array_equal(confusion_matrix(true, predicted, 3), expected)
    scores = class_scores(true, predicted, ("a", "b", "c"))
    assert scores.accuracy == 0.6  # (2 + 2 + 2) / 10
    # precision = diagonal / column sums: a 2/3, b 2/4, c 2/3
    np.testing.assert_allclose(scores.precision, [2 / 3, 1 / 2, 2 / 3])
    # recall = diagonal / row sums: a 2/4, b 2/3, c 2/3
    np.testing.assert_allclose(scores.recall, [1 / 2, 2 / 3, 2 / 3])
    f1_a = 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2)  # 4/7
    f1_b = 2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3)  # 4/7
    np.testing.assert_allclose(scores.f1, [f1_a, f1_b, 2 / 3])
    np.testing.assert_allclose(scores.macro_f1, (f1_a + f1_b + 2 / 3) / 3)
    np.testing.assert_array_equal(scores.support, [4, 3, 3])


def test_a_class_never_predicted_has_precision_zero_and_absent_classes_stay_out():
    scores = class_scores(np.array([0, 0, 1]), np.array([0, 0, 0]), ("x", "y", "z"))
    np.testing.assert_allclose(scores.precision, [2 / 3, 0, 0])
    np.testing.assert_allclose(scores.recall, [1, 0, 0])
    # z neither occurs nor is predicted: the macro mean is over x and y
    np.testing.assert_allclose(scores.macro_f1, (0.8 + 0.0) / 2)


def test_round_trip_through_json_and_padding_is_no_item():
    scores = class_scores(np.array([1, 0, 1]), np.array([1, 1, 1]), ("n", "p"))
    again = ClassScores.from_dict(scores.to_dict())
    np.testing.assert_array_equal(again.confusion, scores.confusion)
    assert again.names == ("n", "p")
    true, predicted = masked_items(np.array([[1, 2, 0]]), np.array([[1, 0, 5]]),
                                   np.array([[True, True, False]]))
    np.testing.assert_array_equal(true, [1, 2])
    np.testing.assert_array_equal(predicted, [1, 0])


def test_baselines():
    assert most_frequent_baseline(["N", "N", "V"], ["N", "V", "N", "D"]) == 0.5
    words, tags = ["the", "run", "run", "run"], ["D", "V", "N", "N"]
    # 'run' is N twice, V once; 'dog' is unknown and gets the most frequent tag overall (N)
    accuracy = per_word_majority_baseline(words, tags, ["the", "run", "dog"], ["D", "V", "N"])
    assert accuracy == 2 / 3
