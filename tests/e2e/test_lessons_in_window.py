"""Every shipped lesson parses, names only things that exist, and can be walked step by step
in the real window: each step's panel opens, its sample model or recipe loads, and the control
it points at is found and shown, beside the lesson with no panel of an earlier step left open
(issue 13, items 1 and 7)."""

from __future__ import annotations

import pytest

from tests.e2e.lesson_window import lesson_window
from workbench.app.window import settle
from workbench.core.lessons import lesson_problems, load_lessons
from workbench.core.worked.examples import EXAMPLES
from workbench.qt.widgets.spotlight import find_control

TOPICS = ("embedding", "word2vec", "elman", "vanishing", "lstm", "gru", "perplexity",
          "self-attention", "causal", "positional", "multi-head",
          "encoder-decoder", "classification", "tagging")


def test_the_lessons_parse_and_cover_the_course():
    lessons, problems = load_lessons()
    assert not problems
    assert len(lessons) >= 12
    titles = " ".join(lesson.title.lower() for lesson in lessons)
    for topic in TOPICS:
        assert topic in titles, f"no lesson on {topic}"
    for lesson in lessons:
        assert lesson.goal and lesson.look and lesson.expect and lesson.sources
        assert 2 <= len(lesson.questions) <= 3 and 0 < lesson.minutes <= 5
        assert [s for s in lesson.steps if s.actions], f"{lesson.key} sets nothing up"


@pytest.mark.slow
def test_every_lesson_walks_in_the_real_window(qtbot, settings, monkeypatch):
    window = lesson_window(qtbot, settings, monkeypatch)
    controller = window.controller
    panel = window.panels["lessons"]
    examples = {example.key for example in EXAMPLES}
    shown = []
    controller.lesson_action.connect(
        lambda action, value: shown.append(value) if action == "highlight" else None)
    for lesson in panel.lessons:
        assert lesson_problems(lesson, set(window.panels), examples) == []
        assert not panel.missing(lesson), f"{lesson.key} needs {lesson.needs}"
        panel.choose(lesson.key)
        for index, step in enumerate(lesson.steps):
            shown.clear()
            panel.run_step(index)
            assert settle(window, 120), f"{lesson.key}, step {index + 1} did not settle"
            assert controller.last_error == "", f"{lesson.key}, step {index + 1}: " \
                                                f"{controller.last_error}"
            if step.panels:  # the lesson and this step's panels, not those of earlier steps
                open_docks = {n for n, dock in window.docks.items() if dock.isVisible()}
                assert open_docks == {"lessons", *step.panels}, f"{lesson.key}, step {index + 1}"
            if step.highlight is None:
                continue
            qtbot.waitUntil(lambda: bool(shown), timeout=5000)
            name, control = step.highlight
            widget = find_control(window.panels[name], control)
            assert widget is not None, f"{lesson.key}, step {index + 1}: no '{control}'"
            assert widget.isVisible(), f"{lesson.key}, step {index + 1}: '{control}' hidden"
            assert window.spotlight.target is widget
        assert len(panel.done) == len(lesson.steps)
        # what the steps set up is really there: lesson 20's recipe, lesson 21's model folder
        # and prompt, lesson 22's word2vec vectors
        if lesson.order == 20:
            assert window.panels["training"].recipe.name == "series-lstm"
        if lesson.order == 21:
            assert controller.snapshot.label == "gpt2 (pretrained)"
            assert window.panels["generate"].prompt.toPlainText().endswith("states.\nTL;DR:")
        if lesson.order == 22:
            assert window.panels["embeddings"].vectors is not None
            assert controller.snapshot.label.startswith("char-lstm")
    controller.shutdown()
