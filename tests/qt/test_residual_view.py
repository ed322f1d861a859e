"""The Attention inspector's Residual stream tab draws the trace of the same weights: the
stream's size at each stage, a token's vector before and after the chosen LayerNorm, and the
feed-forward layer's hidden units (issue 33)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import torch

from workbench.core.config.models import TransformerConfig
from workbench.core.models import build_model
from workbench.qt.panels.attention.residual_view import ResidualView


def data(plot) -> list[tuple[np.ndarray, np.ndarray]]:
    return [item.getData() for item in plot.getPlotItem().items
            if isinstance(item, pg.PlotDataItem)]


def test_the_view_draws_the_traced_stream_norms_and_ffn(qtbot):
    torch.manual_seed(0)
    model = build_model(TransformerConfig(vocab_size=12, d_model=8, num_heads=2, num_layers=2,
                                          d_ff=16, context_length=16, dropout=0.0)).eval()
    trace = model.trace(torch.tensor([1, 4, 2, 7, 3]))
    view = ResidualView()
    qtbot.addWidget(view)
    view.set_layers(trace.layers, trace.token_text)
    assert view.token_box.currentIndex() == 4  # the last token: what the model predicts from
    (x, mean), (_, token) = data(view.stream)
    stages = [trace.layers[0].values["resid_in"], trace.layers[0].values["resid_mid"],
              trace.layers[0].values["resid"], trace.layers[1].values["resid_mid"],
              trace.layers[1].values["resid"]]
    norms = np.array([np.linalg.norm(s, axis=-1) for s in stages])
    assert list(x) == [0, 1, 2, 3, 4]
    assert np.allclose(mean, norms.mean(axis=1)) and np.allclose(token, norms[:, 4])
    view.token_box.setCurrentIndex(1)
    view.norm_box.setCurrentIndex(3)  # layer 1, LN2
    (_, before), (_, after) = data(view.norm_plot)
    values = trace.layers[1].values
    assert np.allclose(before, values["ln2_in"][1]) and np.allclose(after, values["ln2_out"][1])
    assert "before mean" in view.summary.text() and "layer 1" in view.summary.text()
    assert np.allclose(view.ffn.values, np.asarray(values["ffn_hidden"]).T)
    header, columns = view._stream_data()
    assert header[0] == "stage" and columns[0][0] == "input"


def test_a_trace_without_the_stream_leaves_the_view_empty(qtbot):
    from workbench.qt.gallery.fake_traces import transformer_trace

    view = ResidualView()
    qtbot.addWidget(view)
    trace = transformer_trace(1)
    view.set_layers(trace.layers, trace.token_text)
    assert view.layers == [] and data(view.stream) == []
