"""The app's teaching texts state facts that hold (issue 31, "Errors in the app's own teaching
texts"): each claim computed from the code it speaks of."""

from __future__ import annotations

import numpy as np

from workbench.core.lessons import load_lessons
from workbench.core.worked.toy import positional_example

LESSONS = {lesson.key: lesson for lesson in load_lessons()[0]}


def distance(table: np.ndarray, a: int, b: int) -> float:
    return float(np.linalg.norm(table[a] - table[b]))


def test_lesson_10s_question_2_holds_at_the_d_it_names():
    """Position 4 is closer to 5 than to 17 from d = 8; at the lesson's d = 4 it was false."""
    lesson = LESSONS["10-positional-encoding"]
    question = lesson.questions[1]
    assert "d = 8" in question
    steps = [step.actions.get("inputs", {}) for step in lesson.steps]
    assert {"d": "8", "n": "18"} in steps  # a step shows the table the question is about
    at_8 = positional_example(8, 18).values["result"]
    assert distance(at_8, 4, 5) < distance(at_8, 4, 17)
    assert f"{distance(at_8, 4, 5):.2f} against {distance(at_8, 4, 17):.2f}" in question
    at_4 = positional_example(4, 18).values["result"]
    assert distance(at_4, 4, 5) > distance(at_4, 4, 17)  # why the question names d = 8
    assert f"{distance(at_4, 4, 5):.2f} against {distance(at_4, 4, 17):.2f}" in question
