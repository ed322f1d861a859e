"""The Alignment panel: the matrix shows α of the trace (output steps × input positions, token
labels), a slider runs over the snapshots seen, a click opens one decoding step."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.qt.gallery.fake_seq2seq import OUTPUT, SOURCE, alignment, rnn_trace, snapshot
from workbench.qt.panels.alignment import AlignmentPanel


@pytest.fixture
def panel(make_panel):
    return make_panel(AlignmentPanel)


def publish(qtbot, panel, step, attention="additive"):
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(step, attention))


@pytest.mark.slow
def test_the_matrix_is_the_traces_alignment_with_token_labels(qtbot, panel):
    publish(qtbot, panel, 40)
    assert panel.probe_bar.text.text() == "3 Mar 2011 → 2011-03-03"  # the task's example
    np.testing.assert_allclose(panel.heatmap.image_values(), alignment(40), rtol=1e-6)
    assert panel.heatmap.row_labels == OUTPUT and panel.heatmap.col_labels == SOURCE
    np.testing.assert_allclose(panel.heatmap.image_values().sum(1), 1.0, rtol=1e-5)
    assert "fc" in panel.card.text()  # the additive score's card, named as seed 001 does


def test_the_slider_runs_over_the_snapshots_seen(qtbot, panel):
    for step in (0, 50, 100):
        publish(qtbot, panel, step)
    assert panel.slider.maximum() == 2 and panel.slider.value() == 2
    panel.slider.setValue(0)  # back to the blur of the first snapshot
    np.testing.assert_allclose(panel.heatmap.image_values(), alignment(0), rtol=1e-6)
    assert panel.slider_label.text() == "1 of 3: step 0"
    publish(qtbot, panel, 150)  # a user looking back is not pulled to the new snapshot
    assert panel.slider.maximum() == 3 and panel.slider.value() == 0
    np.testing.assert_allclose(panel.heatmap.image_values(), alignment(0), rtol=1e-6)
    panel.slider.setValue(3)
    np.testing.assert_allclose(panel.heatmap.image_values(), alignment(150), rtol=1e-6)


@pytest.mark.slow
def test_a_click_opens_that_decoding_step(qtbot, panel):
    publish(qtbot, panel, 60)
    panel.heatmap.clicked.emit(4, 2)
    np.testing.assert_allclose(panel.step_view.shown_weights, alignment(60)[4])
    expected = rnn_trace(60).contexts[4]
    np.testing.assert_allclose(panel.step_view.context_image.image[0], expected, rtol=1e-5)
    assert "“-”" in panel.step_view.caption.text()  # output step 5 wrote the dash


def test_a_model_without_attention_says_so(qtbot, panel):
    publish(qtbot, panel, 10, attention="none")
    assert "No attention" in panel.heatmap.plot.titleLabel.text
    assert "no attention" in panel.step_view.caption.text()


@pytest.mark.slow
def test_a_new_run_starts_the_slider_again(qtbot, panel):
    """The lesson trains dates with attention, then without: the slider must not run from one
    model's snapshots into the other's (same probe text, same task)."""
    from dataclasses import replace

    for step in (0, 50):
        publish(qtbot, panel, step)
    assert panel.slider.maximum() == 1
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(replace(snapshot(10, "none"), run_dir="/runs/other"))
    assert len(panel.history) == 1 and panel.slider_label.text() == "1 of 1: step 10"
    # and the step view keeps no tick labels of the model with attention (its source
    # characters and next-token guesses stood under empty plots)
    for plot in (panel.step_view.weights, panel.step_view.top):
        assert plot.getAxis("bottom")._tickLevels is None


@pytest.mark.slow
def test_a_frozen_view_keeps_the_card_of_the_model_it_shows(qtbot, panel):
    """The equation card names the score of the model whose matrix is drawn: a newer model
    arriving while the view is frozen changed the card (it followed every snapshot) and left
    the matrix, so an additive model's α stood under the dot score's card."""
    publish(qtbot, panel, 40, attention="additive")
    panel.probe_bar.freeze.setChecked(True)
    panel.controller.set_snapshot(snapshot(80, "dot"))
    qtbot.wait(50)
    assert "Additive" in panel.card.text() and "Dot score" not in panel.card.text()
    np.testing.assert_allclose(panel.heatmap.image_values(), alignment(40), rtol=1e-6)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.probe_bar.freeze.setChecked(False)  # now the newest model, and its card
    assert "Dot score" in panel.card.text()

