"""Lessons 13 and 14 in the real window with their trainings (shortened): each panel a step
names shows what the step says, after earlier lessons typed their probes (issue 13: the
Alignment, Tagging and Classes panels did not follow lesson actions: a line of the play stood
in the task views' probe boxes, and the Classes panel kept the classifier's matrix under the
tagger)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.e2e.lesson_window import lesson_window
from workbench.app.window import settle
from workbench.qt.panels.classify_console import DEFAULT_SENTENCE as REVIEW
from workbench.qt.panels.tagging import DEFAULT_SENTENCE as GARDEN_PATH


def train(window, steps: int) -> None:
    """Press Train on the recipe the step opened, shortened to `steps` (a test's time)."""
    form = window.panels["training"].controls.form
    form.set_config(replace(form.config(), max_steps=steps, eval_every=steps // 2,
                            warmup_steps=2, checkpoint_every=steps, sample_every=steps,
                            threads=1))  # all cores beside the other test worker: slow
    window.panels["training"].controls.start.click()
    assert settle(window, 300), "training did not end"
    assert window.controller.last_error == ""


def step(window, index: int) -> None:
    window.panels["lessons"].run_step(index - 1)
    assert settle(window, 60)


@pytest.mark.slow
def test_lessons_13_and_14_fill_the_panels_they_name(qtbot, settings, monkeypatch):
    window = lesson_window(qtbot, settings, monkeypatch)
    lessons = window.panels["lessons"]
    window.controller.lesson_action.emit("probe", "HAMLET:\nTo be, or not to be")  # lesson 8

    lessons.choose("13-encoder-decoder-attention")
    step(window, 1)
    train(window, 40)
    step(window, 2)
    alignment = window.panels["alignment"]
    assert "→" in alignment.probe_bar.text.text()  # a date to rewrite, not Hamlet's line
    qtbot.waitUntil(lambda: alignment.shown is not None, timeout=20000)
    alpha = alignment.heatmap.image_values()
    assert alpha.shape == (len(alignment.shown.target_text), len(alignment.shown.source_text))
    np.testing.assert_allclose(alpha.sum(axis=1), 1.0, rtol=1e-4)

    lessons.choose("14-classification-and-tagging")
    step(window, 1)
    train(window, 30)
    step(window, 2)
    confusion = window.panels["confusion"]
    assert confusion.heatmap.row_labels == ["negative", "positive"]
    assert "Step 30" in confusion.status.text()
    step(window, 3)
    classify = window.panels["classify"]
    assert classify.probe_bar.text.text() == REVIEW
    qtbot.waitUntil(lambda: classify.answer is not None, timeout=20000)
    step(window, 4)
    train(window, 20)
    step(window, 5)
    tagging = window.panels["tagging"]
    assert tagging.probe_bar.text.text() == GARDEN_PATH
    qtbot.waitUntil(lambda: tagging.answer is not None, timeout=20000)
    assert tagging.table.item(0, 1).text() == "old" and tagging.table.item(2, 1).text() == "NOUN"
    step(window, 2)  # back to the Classes panel: the tagger's matrix, not the classifier's
    assert "NOUN" in confusion.heatmap.row_labels and "Step 20" in confusion.status.text()
    window.controller.shutdown()
