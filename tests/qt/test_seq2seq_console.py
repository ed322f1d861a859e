"""The Seq2seq console: the output streams token by token; hovering a token shows its
probability, alternatives and attention row; beam search reports progress; a language-model
snapshot is named as such."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.core.events import DecodedToken, Progress
from workbench.qt.gallery.fake_seq2seq import OUTPUT, alignment, snapshot
from workbench.qt.gallery.fake_traces import snapshot as lm_snapshot
from workbench.qt.panels.seq2seq_console import Seq2seqConsolePanel


@pytest.fixture
def panel(make_panel):
    return make_panel(Seq2seqConsolePanel)


def test_greedy_output_streams_and_each_token_shows_its_attention_row(qtbot, panel):
    streamed = []
    panel.controller.queries.event.connect(
        lambda e: streamed.append(e) if isinstance(e, DecodedToken) else None)
    panel.controller.set_snapshot(snapshot(80))
    assert "dates @ step 80" in panel.source.label.text()
    panel.input.setText("3 Mar 2011")
    assert panel.decode()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=5000)
    assert [t.text for t in streamed] == OUTPUT  # one event per token, in order
    assert panel.output_text() == "2011-03-03"
    assert "2011-03-03" in panel.output.toPlainText()
    np.testing.assert_allclose(panel.matrix.image_values(), alignment(80), rtol=1e-6)
    panel.show_token(2, tooltip=False)
    assert "p = 0.800" in panel.info.text() and "top:" in panel.info.text()
    bars = [item for item in panel.row_plot.getPlotItem().items
            if hasattr(item, "opts") and "height" in item.opts]
    np.testing.assert_allclose(bars[0].opts["height"], alignment(80)[2])
    assert panel.controller.backend.seq2seq.decodes[0][0] == "3 Mar 2011"


def test_beam_search_reports_progress_then_the_best_output(qtbot, panel):
    """(The panel's slot runs before this test's, both connected to the same signal.)"""
    panel.controller.set_snapshot(snapshot(5))
    panel.form.set_config(dataclasses.replace(panel.form.config(), strategy="beam",
                                              beam_width=3))
    progress = []
    panel.controller.queries.event.connect(
        lambda e: progress.append(panel.info.text()) if isinstance(e, Progress) else None)
    assert panel.decode()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=5000)
    _text, settings = panel.controller.backend.seq2seq.decodes[0]
    assert settings.strategy == "beam" and settings.beam_width == 3
    assert "beam" in panel.matrix.plot.titleLabel.text
    assert progress == ["Beam search: 2"]  # the leading prefix while it searched


def test_a_language_model_snapshot_is_pointed_elsewhere(qtbot, panel):
    panel.controller.set_snapshot(lm_snapshot(3))
    assert "language model" in panel.source.label.text()


def test_another_model_clears_the_output_of_the_one_before(qtbot, panel):
    """Lesson 13: the console showed the previous model's output beside the new model's name.
    A newer snapshot of the same run keeps the output (it is still that run's)."""
    panel.controller.set_snapshot(snapshot(80))
    panel.input.setText("3 Mar 2011")
    assert panel.decode()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=5000)
    panel.controller.set_snapshot(snapshot(90))  # the same run, a later validation
    assert panel.output_text() == "2011-03-03"
    other = dataclasses.replace(snapshot(5, attention="none"), run_name="dates-no-attention")
    panel.controller.set_snapshot(other)
    assert panel.output_text() == "" and panel.result is None
    assert "2011" not in panel.output.toPlainText()
    assert panel.matrix.values.size == 0
