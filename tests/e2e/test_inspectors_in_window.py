"""The real window, the real backend and a real tiny model: every inspector draws the
snapshot it is given, and the console generates from it, with no fake in between."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.app.backend import Backend
from workbench.app.window import build_window, settle
from workbench.core.config.models import LstmConfig, TransformerConfig
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.models import build_model
from workbench.core.snapshot.rebuild import snapshot_of
from workbench.qt.widgets import probe_bar

TOKENIZER = CharTokenizer.train("To be, or not to be, that is the question: whether 'tis")


def tiny_snapshot(config, step):
    torch.manual_seed(step)
    model = build_model(config.__class__(**{**config.__dict__,
                                            "vocab_size": TOKENIZER.vocab_size}))
    return snapshot_of(model, TOKENIZER.to_dict(), step, {}, config.arch)


@pytest.mark.slow
def test_inspectors_and_console_on_real_snapshots(qtbot, settings, monkeypatch):
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # settle() does not wait for timers
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    panels = window.panels
    controller = window.controller
    lstm = tiny_snapshot(LstmConfig(hidden_size=12, embedding_size=8, num_layers=2), 10)
    controller.set_snapshot(lstm)
    assert settle(window, 60)
    gates = panels["gates"]
    layer0 = gates.trace.layers[0]
    assert gates.heatmap.image_values().shape == (12, len(gates.trace.token_text))
    assert np.allclose(gates.heatmap.image_values(), layer0.values["i"].T, atol=1e-6)
    assert panels["gradients"].curves() and panels["nexttoken"].table.rowCount() > 5
    assert controller.backend.inspection.rebuilds == 1  # four inspectors, one model
    # a click on a cell works that unit's step out from the snapshot's weights: the same
    # numbers as the trace
    gates.heatmap.clicked.emit(3, 4)
    worked = gates.worked.computation
    assert worked is not None and gates.tabs.currentWidget() is gates.worked
    for gate in "ifgoch":
        assert np.isclose(worked.values[gate], layer0.values[gate][4, 3], atol=1e-5)

    transformer = tiny_snapshot(TransformerConfig(d_model=16, num_heads=2, num_layers=1,
                                                  d_ff=32, context_length=64, dropout=0.0), 20)
    controller.set_snapshot(transformer)
    assert settle(window, 60)
    attention = panels["attention"]
    assert sorted(attention.thumbnails) == [(0, 0), (0, 1)]
    assert attention.positional.image_values().shape[1] == 16
    attention.head_box.setCurrentIndex(1)
    attention.heatmap.clicked.emit(5, 2)
    worked = attention.worked.computation
    values = attention.trace.layers[0].values
    assert np.isclose(worked.values["alpha"], values["attn"][1, 5, 2], atol=1e-5)
    assert np.allclose(worked.values["output"], values["attn_out"][5], atol=1e-5)
    assert "α5,2" in attention.worked.toPlainText()

    console = panels["generate"]
    console.prompt.setPlainText("To be")
    assert console.generate()
    assert settle(window, 60)
    assert console.history_list.count() == 1 and console.tokens
    assert controller.last_error == ""
    controller.shutdown()
