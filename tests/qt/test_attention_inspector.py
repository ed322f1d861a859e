"""Attention inspector fed a known transformer trace."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.qt.gallery.fake_traces import snapshot, transformer_trace
from workbench.qt.panels.attention import AttentionPanel


@pytest.fixture
def panel(make_panel):
    return make_panel(AttentionPanel)


def publish(qtbot, panel, step):
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(step, "transformer"))


@pytest.mark.slow
def test_heatmap_shows_weights_with_the_causal_mask(qtbot, panel):
    publish(qtbot, panel, 100)
    trace = transformer_trace(100)
    panel.layer_box.setCurrentIndex(1)
    panel.head_box.setCurrentIndex(2)
    shown = panel.heatmap.image_values()
    attn = trace.layer("block1").values["attn"][2]
    lower = np.tril_indices(attn.shape[0])
    assert np.allclose(shown[lower], attn[lower])
    assert np.isnan(shown[np.triu_indices(attn.shape[0], 1)]).all()  # the mask, hatched
    panel.what_box.setCurrentIndex(1)
    scores = trace.layer("block1").values["scores"][2]
    assert np.allclose(panel.heatmap.image_values()[lower], scores[lower], atol=1e-6)


def test_grid_has_a_thumbnail_per_layer_and_head_and_click_opens_it(qtbot, panel):
    publish(qtbot, panel, 100)
    assert sorted(panel.thumbnails) == [(li, h) for li in range(2) for h in range(4)]
    panel.tabs.setCurrentIndex(1)
    panel.select(1, 3)
    assert (panel.layer_box.currentIndex(), panel.head_box.currentIndex()) == (1, 3)
    assert panel.tabs.currentIndex() == 0


def test_head_statistics_accumulate_over_snapshots(qtbot, panel):
    for step in (100, 200, 300):
        publish(qtbot, panel, step)
    header, columns = panel._history_data()
    assert header[:3] == ["step", "head", "entropy"]
    assert sorted(set(columns[0])) == [100.0, 200.0, 300.0]
    expected = transformer_trace(200).extras["head_stats/block0"][1, 0]
    pairs = zip(columns[0], columns[1], strict=True)
    rows = [i for i, (s, h) in enumerate(pairs) if s == 200 and h == 1]
    assert np.isclose(columns[2][rows[0]], expected)
    assert len(panel.history_plot.getPlotItem().listDataItems()) == 4


def test_positional_encoding_and_line_view(qtbot, panel):
    publish(qtbot, panel, 100)
    pe = transformer_trace(100).extras["positional"]
    assert np.allclose(panel.positional.image_values(), pe, atol=1e-6)
    # beside it the course's position-similarity matrix of the same table (issue 33)
    similarity = panel.position_similarity.values
    unit = pe / np.linalg.norm(pe, axis=1, keepdims=True)
    assert np.allclose(similarity, unit @ unit.T, atol=1e-5)
    assert np.allclose(np.diag(similarity), 1.0, atol=1e-5)
    header, columns = panel._line_data()
    assert len(columns[0]) == 13 * 14 // 2  # one line per query/key pair j <= i
    assert panel.lines.getPlotItem().listDataItems()


def test_recurrent_trace_says_where_to_look(qtbot, panel):
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(100, "lstm"))
    assert "Gates" in panel.heatmap.plot.titleLabel.text


def test_the_first_probe_of_a_recurrent_model_leaves_the_panel_its_height(qtbot, panel):
    """The plot's title says there is no attention; the same words on the message line made
    the panel taller than its floating window at the first probe of a training LSTM, and the
    scroll bar that appeared laid the whole panel out again (the soak's one 100 ms stall)."""
    before = panel.minimumSizeHint().height()
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(100, "lstm"))
    assert "Gates" in panel.heatmap.plot.titleLabel.text
    assert panel.minimumSizeHint().height() == before


def test_a_seq2seq_transformer_offers_encoder_decoder_and_cross_attention(qtbot, make_panel):
    from workbench.qt.gallery import fake_seq2seq as seq2seq_fakes

    panel = make_panel(AttentionPanel)
    controller = panel.controller
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        controller.set_snapshot(seq2seq_fakes.snapshot(30, arch="transformer_seq2seq"))
    assert "→" in panel.probe_bar.text.text()  # an input → output probe, not a sentence
    names = [panel.layer_box.itemText(i) for i in range(panel.layer_box.count())]
    assert names == ["encoder layer 0 · self", "decoder layer 0 · masked self",
                     "decoder layer 0 · cross"]
    trace = seq2seq_fakes.transformer_trace(30)
    panel.layer_box.setCurrentIndex(2)
    panel.head_box.setCurrentIndex(1)
    cross = trace.decoder_layers[0].values["cross"][1]
    np.testing.assert_allclose(panel.heatmap.image_values(), cross, rtol=1e-6)  # no mask
    assert panel.heatmap.row_labels == seq2seq_fakes.OUTPUT
    assert panel.heatmap.col_labels == seq2seq_fakes.SOURCE
    panel.layer_box.setCurrentIndex(1)  # the decoder's own: causal, so hatched above
    shown = panel.heatmap.image_values()
    assert np.isnan(shown[np.triu_indices(shown.shape[0], 1)]).all()
    assert panel.heatmap.row_labels[0] == "<bos>"
    controller.shutdown()


def test_another_run_starts_the_head_statistics_again(qtbot, panel):
    """Lesson 8's sample transformer, then lesson 9's trained one: each model's curves alone
    (a history of both had rows of different head counts and the plot raised IndexError)."""
    for step in (100, 200):
        publish(qtbot, panel, step)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(50, "transformer", run_dir="/runs/other"))
    assert [step for step, _ in panel.history] == [50]
