"""A teacher's lesson file: what parses, and a message naming the file and what to fix for
what does not."""

from __future__ import annotations

import pytest

from workbench.core.lessons import LessonError, lesson_problems, load_lessons, parse_lesson

GOOD = '''
title = "Attention"
order = 3
minutes = 2.5
goal = "See it."
questions = ["Why?", "How?"]

[[step]]
do = "Open it."
panel = "attention"
highlight = "attention:head_box"

[[step]]
do = "Read."
'''


def test_a_lesson_parses_with_its_steps_in_order():
    lesson = parse_lesson(GOOD, "03-attention")
    assert lesson.title == "Attention" and lesson.minutes == 2.5 and lesson.order == 3
    assert [s.do for s in lesson.steps] == ["Open it.", "Read."]
    assert lesson.steps[0].highlight == ("attention", "head_box")
    assert lesson.steps[1].actions == {} and lesson.questions == ("Why?", "How?")


@pytest.mark.parametrize("text, message", [
    ("title = 'x'\n[[step]]\ndo = 'a'\n", "has no goal"),
    (GOOD.replace('do = "Read."', 'panel = "gates"'), "step 2: a step needs do"),
    (GOOD.replace('panel = "attention"', 'panle = "attention"'), "unknown key 'panle'"),
    ("title = 'x'\ngoal = 'y'\n", "no \\[\\[step\\]\\] tables"),
    ("title = 'x\n", "is not valid TOML"),
])
def test_a_broken_file_is_named_with_what_to_fix(text, message):
    with pytest.raises(LessonError, match=message):
        parse_lesson(text, "broken")


def test_one_broken_file_does_not_hide_the_others(tmp_path):
    (tmp_path / "a.toml").write_text(GOOD)
    (tmp_path / "b.toml").write_text("title = 'x'\n")
    lessons, problems = load_lessons(tmp_path)
    assert [lesson.key for lesson in lessons] == ["a"]
    assert len(problems) == 1 and "b.toml" in problems[0]


def test_names_that_do_not_exist_are_reported():
    text = GOOD + '''
[[step]]
do = "Load."
checkpoint = "models/no-such-model"
example = "nothing"
model = { arch = "transformer", d_model = 30, num_heads = 4 }
'''
    problems = lesson_problems(parse_lesson(text, "x"), {"gates"}, {"softmax"})
    joined = " ".join(problems)
    assert "no panel named 'attention'" in joined
    assert "'models/no-such-model' is not in resources/" in joined
    assert "no worked example 'nothing'" in joined
    assert "Heads (4) must divide the width d_model (30)" in joined


def test_a_step_shows_the_panels_it_names_else_those_its_actions_fill():
    text = GOOD + '''
[[step]]
do = "Train and watch."
panel = ["training", "gradients"]
recipe = "lessons/recipes/no-mask.toml"

[[step]]
do = "Load a recipe."
recipe = "lessons/recipes/no-mask.toml"
prompt = "ROMEO:"

[[step]]
do = "Open a model."
checkpoint = "models/char-lstm"
'''
    steps = parse_lesson(text, "x").steps
    assert steps[0].panels == ("attention",)  # named and highlighted: once
    assert steps[1].panels == ()  # names nothing: the window keeps what it shows
    assert steps[2].panels == ("training", "gradients")
    assert steps[3].panels == ("training", "generate")
    assert steps[4].panels == ()
    with pytest.raises(LessonError, match="panel must be a panel's name or a list"):
        parse_lesson(GOOD.replace('panel = "attention"', "panel = 3"), "x")
