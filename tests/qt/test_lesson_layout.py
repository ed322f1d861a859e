"""A lesson step shows the Lessons panel and the few panels it names, nothing else: panels
earlier steps and lessons opened are closed, so the current one gets the room (issue 13: after
a few lessons the window held every panel any step had opened, squeezed side by side)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from tests.qt.window_size import resize_window


@pytest.fixture
def lessons(qtbot, window):
    resize_window(window, 1366, 768)
    qtbot.wait(50)
    return window.panels["lessons"]


def visible(window) -> set[str]:
    return {name for name, dock in window.docks.items() if dock.isVisible()}


def run(qtbot, window, panel, lesson: str, step: int) -> None:
    panel.choose(lesson)
    panel.run_step(step - 1)
    qtbot.wait(20)  # the perspective sizes its docks after a turn of the event loop
    QApplication.processEvents()


def test_each_step_shows_only_its_own_panels_beside_the_lesson(qtbot, window, lessons):
    window.perspectives.switch("All panels")  # wherever the student was
    run(qtbot, window, lessons, "01-one-hot-and-embeddings", 1)  # panel = "worked"
    assert window.perspectives.current == "Lessons"
    assert visible(window) == {"lessons", "worked"}
    run(qtbot, window, lessons, "01-one-hot-and-embeddings", 5)  # architecture
    assert visible(window) == {"lessons", "architecture"}
    run(qtbot, window, lessons, "13-encoder-decoder-attention", 2)
    assert visible(window) == {"lessons", "alignment"}
    run(qtbot, window, lessons, "14-classification-and-tagging", 1)  # a recipe: Training
    assert visible(window) == {"lessons", "training"}
    run(qtbot, window, lessons, "14-classification-and-tagging", 2)
    assert visible(window) == {"lessons", "confusion"}
    qtbot.waitUntil(lambda: window.docks["confusion"].width() > 0.55 * window.width())
    lesson, shown = window.docks["lessons"].geometry(), window.docks["confusion"].geometry()
    assert lesson.right() < shown.left()  # beside the lesson, not tabbed behind it
    assert lesson.width() > 0.25 * window.width()


def test_the_welcome_opens_the_lessons_perspective(qtbot, window):
    window.perspectives.switch("Data")
    window.show_lessons()
    assert window.perspectives.current == "Lessons" and "lessons" in visible(window)


def test_a_lesson_probe_goes_to_the_language_model_views_only(qtbot, window):
    """A lesson's probe is a line of the play: the task views keep their own examples (the
    Classify console showed Hamlet's line as the review a student was asked to type)."""
    bars = {name: window.panels[name].probe_bar for name in
            ("gates", "attention", "alignment", "tagging", "classify", "fill_mask")}
    before = {name: bar.text.text() for name, bar in bars.items()}
    window.controller.lesson_action.emit("probe", "HAMLET:\nTo be")
    after = {name: bar.text.text() for name, bar in bars.items()}
    assert after["gates"] == after["attention"] == "HAMLET:\nTo be"
    for name in ("alignment", "tagging", "classify", "fill_mask"):
        assert after[name] == before[name], name



def test_the_lesson_list_shows_whole_titles_at_1366(qtbot, window, lessons):
    """At 1366 × 768 the drop-down is as narrow as the Lessons dock, and long titles were cut
    mid-word ("1. One-hot vectors and the embedding lookup –"): the box cuts them with "…" and
    its tooltip is the whole title; the list opens as wide as the longest title, also in a
    style that opens it in place at the box's width (Windows)."""
    from PySide6.QtWidgets import QStyleFactory

    window.controller.lesson_action.emit("panels", ("worked",))
    qtbot.waitUntil(lambda: window.docks["lessons"].width() < 0.4 * window.width())
    box = lessons.list
    texts = [box.itemText(i) for i in range(box.count())]
    assert box.width() < box.fontMetrics().horizontalAdvance(texts[0])  # the case in question
    assert box.shown_text().endswith("…") and box.toolTip() == texts[0]
    box.setCurrentIndex(3)
    assert box.toolTip() == texts[3]
    style = QStyleFactory.create("Windows")
    box.setStyle(style)
    box.view().setStyle(style)
    box.showPopup()
    qtbot.waitUntil(box.view().isVisible)
    view = box.view()
    cut = [t for t in texts if view.viewport().width() < view.fontMetrics().horizontalAdvance(t)]
    box.hidePopup()
    assert cut == []


def test_the_lesson_alone_reads_in_lines_of_a_readable_length(qtbot, window, lessons):
    """Ctrl+6 before any step shows the Lessons panel alone: at 1920 × 1080 its lines ran the
    whole 1900 px and each step's Set up button stood a screen away from its text. The page
    keeps a readable width (centred), and takes the dock's whole width when that is narrower."""
    from workbench.qt.panels.lessons import READABLE_CHARACTERS

    resize_window(window, 1920, 1080)
    window.perspectives.switch("Lessons")
    readable = READABLE_CHARACTERS * lessons.fontMetrics().averageCharWidth()
    qtbot.waitUntil(lambda: lessons.width() > 1800)
    qtbot.waitUntil(lambda: lessons.header.width() <= readable)
    assert lessons.header.mapTo(lessons, lessons.header.rect().topLeft()).x() > 300  # centred
    window.controller.lesson_action.emit("panels", ("worked",))  # a step: the lesson beside
    qtbot.waitUntil(lambda: lessons.width() < 0.4 * window.width())
    qtbot.waitUntil(lambda: lessons.header.width() > lessons.width() - 80)


def test_presentation_mode_keeps_the_steps_panels(qtbot, window, lessons):
    """Zoomed for a projector, a 1366 px window has the room of a narrow one and the step's
    panel moves into the lesson's tab group; it stays open, and comes back beside the lesson
    at actual size."""
    run(qtbot, window, lessons, "13-encoder-decoder-attention", 2)
    assert visible(window) == {"lessons", "alignment"}
    window.layout_manager.presentation.setChecked(True)
    try:
        qtbot.waitUntil(lambda: window.docks["lessons"] in
                        window.tabifiedDockWidgets(window.docks["alignment"]), timeout=10_000)
        assert window.perspectives.current == "Lessons"
        assert not window.docks["alignment"].isHidden()
    finally:
        window.layout_manager.presentation.setChecked(False)
    qtbot.waitUntil(lambda: visible(window) == {"lessons", "alignment"} and window.docks[
        "lessons"] not in window.tabifiedDockWidgets(window.docks["alignment"]), timeout=10_000)
