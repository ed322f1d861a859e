"""The encoder tasks' views fed known results: the confusion matrix and per-class bars hold the
validation's numbers, the classify console draws the label distribution and per-token
contributions over the words, the tagging view shows predicted and gold tags with each word's
distribution, and the fill-in-the-blank probe compares two sentences."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_encoder import TAGS, evaluation, task_snapshot
from workbench.qt.panels.classify_console import ClassifyConsolePanel
from workbench.qt.panels.confusion import ConfusionPanel
from workbench.qt.panels.fill_mask import FillMaskPanel
from workbench.qt.panels.tagging import TaggingPanel, split_gold
from workbench.qt.widgets import probe_bar


@pytest.fixture
def controller(qtbot, monkeypatch):
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # no throttling in tests
    controller = WorkbenchController(FakeBackend())
    yield controller
    controller.shutdown()


def make(qtbot, controller, cls):
    panel = cls(controller)
    qtbot.addWidget(panel)
    return panel


def publish(qtbot, panel, task):
    # 60 s: the probe runs on the query thread, which a loaded 2-core CI machine may not
    # schedule for seconds (5 s ran out once, stop 39's tier run)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=60_000):
        panel.controller.set_snapshot(task_snapshot(task))


def bar_heights(plot) -> list[np.ndarray]:
    import pyqtgraph as pg

    bars = [item for item in plot.getPlotItem().items if isinstance(item, pg.BarGraphItem)]
    # horizontal bars (x0 given) have their lengths as widths
    return [np.asarray(b.opts["width"] if b.opts.get("x0") is not None else b.opts["height"],
                       dtype=float) for b in bars]


def test_confusion_matrix_and_per_class_bars_follow_the_validations(qtbot, controller):
    panel = make(qtbot, controller, ConfusionPanel)
    controller.job_event.emit(evaluation(50, [[3, 2], [4, 1]]))
    controller.job_event.emit(evaluation(100, [[4, 1], [1, 4]]))
    np.testing.assert_array_equal(panel.heatmap.image_values(), [[4, 1], [1, 4]])
    assert "Step 100: accuracy 80.0%" in panel.status.text()
    precision, recall, f1 = bar_heights(panel.bars)
    np.testing.assert_allclose(precision, [0.8, 0.8])
    np.testing.assert_allclose(recall, [0.8, 0.8])
    assert [item.toPlainText() for item in panel.cell_text] == ["4", "1", "1", "4"]
    panel.slider.setValue(0)  # back to the first validation
    np.testing.assert_array_equal(panel.heatmap.image_values(), [[3, 2], [4, 1]])
    panel.normalise.setChecked(True)
    np.testing.assert_allclose(panel.heatmap.image_values(), [[0.6, 0.4], [0.8, 0.2]])
    header, columns = panel._bar_data()
    assert header[0] == "class" and columns[0] == ["neg", "pos"]
    controller.run_changed.emit("/runs/new")  # a new run starts afresh
    assert panel.history == []
    # and the last run's matrix does not stay on screen under the new run (a lesson's tagger
    # showed the sentiment classifier's matrix until its first validation)
    assert panel.heatmap.values.size == 0 and panel.cell_text == []
    assert bar_heights(panel.bars) == [] and "new run" in panel.status.text()


def test_a_language_model_validation_leaves_the_panel_alone(qtbot, controller):
    from workbench.core.events import EvalLogged

    panel = make(qtbot, controller, ConfusionPanel)
    controller.job_event.emit(EvalLogged(10, 2.0, 7.4, 2.9, 100, 1.0))
    assert panel.history == [] and "Train a classifier" in panel.status.text()


def test_classify_console_draws_labels_and_contributions_over_the_words(qtbot, controller):
    panel = make(qtbot, controller, ClassifyConsolePanel)
    publish(qtbot, panel, "classify")
    assert panel.verdict.text() == "positive  (80.0%)"
    html = panel.words.text()
    for word in ("the", "food", "was", "good,", "not", "bad", "at", "all"):
        assert f"&nbsp;{word}&nbsp;" in html
    labels, tokens = bar_heights(panel.labels_plot), bar_heights(panel.tokens_plot)
    np.testing.assert_allclose(labels[0], [0.2, 0.8])
    np.testing.assert_allclose(tokens[0], panel.answer.contributions)
    assert "attention" in panel.method.text()


def test_classify_console_refuses_a_model_of_another_task(qtbot, controller):
    panel = make(qtbot, controller, ClassifyConsolePanel)
    controller.set_snapshot(task_snapshot("tag"))
    qtbot.waitUntil(lambda: "trained for 'tag'" in panel.probe_bar.status.text(), timeout=5000)
    assert panel.answer is None


def test_gold_tags_are_read_from_word_slash_tag():
    assert split_gold("The/DET dog/NOUN and/or/CCONJ") == (["The", "dog", "and/or"],
                                                           ["DET", "NOUN", "CCONJ"])
    assert split_gold("The dog/NOUN") == (None, None)


def test_tagging_view_shows_predicted_gold_and_distributions(qtbot, controller):
    panel = make(qtbot, controller, TaggingPanel)
    panel.probe_bar.text.setText("The/DET old/NOUN man/NOUN")
    publish(qtbot, panel, "tag")
    assert controller.backend.inspection.asked[-1][2] == {"words": ["The", "old", "man"]}
    table = panel.table
    assert [table.item(0, c).text() for c in range(3)] == ["The", "old", "man"]
    assert [table.item(1, c).text() for c in range(3)] == ["DET", "NOUN", "VERB"]
    assert [table.item(2, c).text() for c in range(3)] == ["DET", "NOUN", "NOUN"]
    assert table.item(2, 2).foreground().color().name() == "#d55e00"  # wrong: in red
    assert "2 of 3 words" in panel.summary.text()
    np.testing.assert_allclose(panel.heatmap.image_values(), panel.answer.probs.T)
    assert panel.heatmap.row_labels == list(TAGS)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.test_button.click()
    assert panel.probe_bar.text.text() == "The/DET old/ADJ man/NOUN"


def test_fill_in_the_blank_compares_two_sentences(qtbot, controller):
    panel = make(qtbot, controller, FillMaskPanel)
    panel.probe_bar.text.setText("In Texas , they like to buy [MASK] .")
    publish(qtbot, panel, "masked_lm")
    (single,) = bar_heights(panel.plot)
    np.testing.assert_allclose(single, [0.5, 0.3, 0.1])
    assert "'cowboy boots'" in panel.summary.text()
    panel.compare.setText("In New York , they like to buy [MASK] .")
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.probe_bar.probe()
    first, second = bar_heights(panel.plot)
    np.testing.assert_allclose(first, [0.5, 0.0, 0.3, 0.1])  # cowboy boots, bagels, be, do
    np.testing.assert_allclose(second, [0.0, 0.5, 0.3, 0.1])
    panel.chart.setCurrentText("Differences")
    (difference,) = bar_heights(panel.plot)
    np.testing.assert_allclose(difference, [0.5, -0.5, 0.0, 0.0])
