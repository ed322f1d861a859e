"""Every lesson step sets up the whole state it relies on (issue 31, item 2): played after
other lessons' steps in random orders, each step shows the panels, tab, model, task, probe,
example and settings it states, or inherits from the steps before it in its lesson, and
nothing left from another lesson. A fake backend keeps it fast: opening a sample model gives
a snapshot that names the folder it came from."""

from __future__ import annotations

import dataclasses
import random

import pytest
from PySide6.QtWidgets import QApplication

from tests.qt.window_size import resize_window
from workbench.core.config.encoder_tasks import MaskedLmTaskConfig
from workbench.core.lessons import load_lessons
from workbench.core.lessons.setup import inherited, step_setup
from workbench.core.resources import resource_path, user_model_folder
from workbench.qt.gallery.fake_backend import FakeBackend, FakeInspection
from workbench.qt.gallery.fake_data import corpus_of
from workbench.qt.gallery.fake_traces import snapshot
from workbench.qt.widgets.spotlight import find_control

LESSONS, _ = load_lessons()


class SampleModels(FakeInspection):
    """A sample model's snapshot says which folder it is (the fake's is always the same)."""

    def load_checkpoint_job(self, path):
        from workbench.qt.gallery.fake_traces import finished

        # (one fake trace for every view: the fake transformer trace has no next-token rows)
        return finished(snapshot(step=999, run_dir=str(path)))


@pytest.fixture
def window(qtbot, settings):
    from workbench.app.window import build_window

    window = build_window(settings, backend=FakeBackend(inspection=SampleModels()))
    qtbot.addWidget(window)
    window.show()
    resize_window(window, 1366, 768)
    # a corpus of two speakers' lines, so a step's tokenizer has something to tokenize
    window.controller.set_corpus(corpus_of("Rom. But soft, what light?\nJul. Ay me!\n" * 20))
    errors = []
    window.controller.error.connect(lambda message, _detail: errors.append(message))
    window.errors = errors
    return window


def settle(qtbot, window) -> None:
    controller = window.controller
    qtbot.waitUntil(lambda: not controller.jobs.busy and not controller.query_queue.busy,
                    timeout=60000)
    QApplication.processEvents()


def check(window, lesson, index: int) -> None:
    """The window shows what step `index` of `lesson` states (or inherits)."""
    where = f"{lesson.key}, step {index + 1}"
    step, setup, panels = lesson.steps[index], step_setup(lesson, index), window.panels
    controller = window.controller
    shown = {name for name, dock in window.docks.items() if dock.isVisible()}
    assert set(step.panels) <= shown, where
    if "checkpoint" in setup:
        assert controller.snapshot.run_dir == str(resource_path(setup["checkpoint"])), where
    if "pretrained" in setup:  # a model folder the classroom copied in
        assert controller.snapshot.run_dir == str(user_model_folder(setup["pretrained"])), where
    if "recipe" in setup:
        recipe = panels["training"].recipe
        assert recipe is not None and controller.task_config == recipe.task, where
    elif "task" in setup:
        assert controller.task_config.name == setup["task"], where
    for key, value in setup.get("model", {}).items():
        assert getattr(controller.model_config, key) == value, (where, key)
    for key, value in setup.get("tokenizer", {}).items():
        assert getattr(panels["corpus"].tokenizer_view.config(), key) == value, (where, key)
    if "probe" in setup:
        assert panels["gates"].probe_bar.text.text() == setup["probe"], where
    if "example" in setup:
        worked = panels["worked"]
        assert worked.example().key == setup["example"], where
        defaults = {spec.key: spec.default for spec in worked.example().inputs}
        typed = {**defaults, **{k: str(v) for k, v in setup.get("inputs", {}).items()}}
        for key, text in worked.texts().items():
            expected = typed[key]
            if key in setup.get("inputs", {}) and text in ("yes", "no"):
                expected = "yes" if expected.lower() in ("yes", "true", "1", "on") else "no"
            assert text == expected, (where, key)
    if "prompt" in setup:
        assert panels["generate"].prompt.toPlainText() == setup["prompt"], where
    generation = panels["generate"].form.config()
    for key, value in setup.get("generation", {}).items():
        assert getattr(generation, key) == value, (where, key)
    if "tab" in setup:
        name, _, control = setup["tab"].partition(":")
        assert find_control(panels[name], control).isVisibleTo(panels[name]), where


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_step_after_other_lessons_steps_shows_what_it_states(qtbot, window, seed):
    lessons = window.panels["lessons"]
    runnable = [lesson for lesson in LESSONS if not lessons.missing(lesson)]
    order = [(lesson, i) for lesson in runnable for i in range(len(lesson.steps))]
    random.Random(seed).shuffle(order)
    for lesson, index in order:
        # a leftover every step must undo where it states a task: another lesson's masked LM
        window.controller.set_task_config(MaskedLmTaskConfig())
        lessons.choose(lesson.key)
        lessons.run_step(index)
        settle(qtbot, window)
        check(window, lesson, index)
    assert window.errors == []


def test_a_step_inherits_what_the_steps_before_it_set():
    lesson = next(x for x in LESSONS if x.key.startswith("01-"))
    first = step_setup(lesson, 0)
    assert first["example"] == "lookup" and "inputs" not in first  # x at its default again
    third = step_setup(lesson, 2)
    assert third["example"] == "lookup" and third["inputs"] == {"x": "0.5 0.5 0"}
    assert "highlight" not in inherited(lesson, 2)  # what a step shows is its own
    five = step_setup(lesson, 4)
    assert five["task"] == "language_model" and five["tokenizer"]["kind"] == "char"
    gates = next(x for x in LESSONS if x.key.startswith("05-"))
    assert step_setup(gates, 2)["checkpoint"] == "models/char-lstm"  # from step 1
    assert "checkpoint" in inherited(gates, 2)


def test_the_embedding_table_of_lesson_1_step_5_is_the_character_vocabulary(qtbot, window):
    """Lesson 1 step 5 after a masked-LM lesson showed its 5,000-word table."""
    controller = window.controller
    controller.set_task_config(MaskedLmTaskConfig())
    lessons = window.panels["lessons"]
    lessons.choose("01-one-hot-and-embeddings")
    lessons.run_step(4)
    settle(qtbot, window)
    architecture = window.panels["architecture"]
    config = architecture.config()
    assert controller.task_config.name == "language_model"
    assert config.arch == "lstm" and config.embedding_size == 64
    assert config.vocab_size == controller.tokens.tokenizer.vocab_size
    assert dataclasses.asdict(panels_tokenizer(window))["kind"] == "char"


def panels_tokenizer(window):
    return window.panels["corpus"].tokenizer_view.config()


def test_a_new_lesson_opens_at_its_top(qtbot, window):
    lessons = window.panels["lessons"]
    window.show_lessons()
    lessons.choose("05-lstm-gates")
    QApplication.processEvents()
    bar = lessons.scroller.verticalScrollBar()
    bar.setValue(bar.maximum())
    lessons.choose("06-gru-vs-lstm")
    assert bar.value() == 0
