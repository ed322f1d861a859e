"""Next-token view fed a known trace: table, bars, loss colouring and PCA path."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.qt.gallery.fake_traces import lstm_trace, snapshot
from workbench.qt.panels.nexttoken import NextTokenPanel, loss_html


@pytest.fixture
def panel(qtbot, make_panel):
    widget = make_panel(NextTokenPanel)
    with qtbot.waitSignal(widget.probe_bar.result_ready, timeout=5000):
        widget.controller.set_snapshot(snapshot(100))
    return widget


def test_table_lists_top_k_per_position(panel):
    trace = lstm_trace(100)
    assert panel.table.rowCount() == len(trace.token_text)
    assert panel.table.item(3, 2).text() == "e  0.40"
    assert panel.table.item(5, 1).text() == f"{trace.extras['token_loss'][5]:.2f}"


def test_selecting_a_position_draws_its_distribution(panel):
    panel.select_position(4)
    heights = panel.bars.opts["height"]
    assert np.allclose(heights, lstm_trace(100).extras["topk_probs"][4])


def test_probe_text_is_coloured_by_loss_and_path_is_drawn(panel):
    html = panel.text_view.text()
    assert html.count("background:") == len(lstm_trace().token_text) - 1  # first: no loss
    assert "mean loss" in html
    scatter = [i for i in panel.path_plot.getPlotItem().items
               if type(i).__name__ == "ScatterPlotItem"]
    x, y = scatter[0].getData()
    assert np.allclose(x, lstm_trace(100).extras["pca_path"][:, 0])


def test_loss_html_links_each_token():
    text = loss_html(["a", "b"], np.array([np.nan, 2.0]), 2.0)
    assert 'href="0"' in text and 'href="1"' in text and "loss 2.00" in text


def test_a_shorter_probe_shows_only_its_own_path_labels(panel, qtbot):
    """The path's token labels are reused across probes: a shorter probe hides the extra ones
    (stale labels of the longer probe would float over the new path)."""
    from workbench.qt.widgets.heatmap import visible_token

    trace = lstm_trace(100)
    short = len(trace.token_text) - 4
    trace.extras["pca_path"] = trace.extras["pca_path"][:short]
    panel.show_trace(trace)
    shown = [item.toPlainText() for item in panel.path_labels if item.isVisible()]
    assert shown == [visible_token(t) for t in trace.token_text[:short]]
    assert len(panel.path_labels) == len(trace.token_text)  # none made anew


def test_a_new_probe_updates_the_table_in_place_and_widens_for_longer_text(panel):
    """While a model trains, each probe of the same text keeps the table's cells and changes
    their texts; a prediction longer than any before widens its column."""
    trace = lstm_trace(200)
    kept = panel.table.item(3, 2)
    trace.extras["topk_probs"] = trace.extras["topk_probs"] * 0 + 0.25
    panel.show_trace(trace)
    assert panel.table.item(3, 2) is kept and kept.text() == "e  0.25"
    assert panel.table.item(5, 1).text() == f"{trace.extras['token_loss'][5]:.2f}"
    width = panel.table.columnWidth(2)
    trace.extras["topk_text"] = trace.extras["topk_text"].copy()
    trace.extras["topk_text"][3, 0] = "amuchlongerprediction"
    panel.show_trace(trace)
    assert panel.table.item(3, 2).text() == "amuchlongerprediction  0.25"
    assert panel.table.columnWidth(2) > width
    whole = lstm_trace(200)
    cut = {name: whole.extras[name][:-3] for name in
           ("topk_ids", "topk_probs", "topk_text", "token_loss", "pca_path")}
    shorter = dataclasses.replace(whole, token_text=whole.token_text[:-3],
                                  extras={**whole.extras, **cut})
    panel.show_trace(shorter)
    assert panel.table.rowCount() == len(shorter.token_text)


def test_the_first_probe_leaves_the_loss_line_its_height(qtbot, make_panel):
    """The loss line is in its probed style from the start: a line that grew at the first
    probe laid the window out again while training began."""
    widget = make_panel(NextTokenPanel)
    controller = widget.controller
    widget.resize(900, 600)
    widget.show()
    qtbot.waitExposed(widget)
    before = widget.text_view.height()
    with qtbot.waitSignal(widget.probe_bar.result_ready, timeout=5000):
        controller.set_snapshot(snapshot(100))
    qtbot.wait(50)
    assert "mean loss" in widget.text_view.text()
    assert widget.text_view.height() == before
    controller.shutdown()
