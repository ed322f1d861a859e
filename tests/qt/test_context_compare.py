"""Static against contextual (issue 33): one word in two sentences through a language model,
its input row and each layer's state compared by cosine, from the traces of the same weights;
and the Next token inspector's tab that asks for the second sentence's trace."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import LstmConfig, TransformerConfig
from workbench.core.models import build_model
from workbench.qt.widgets.context_compare import ContextCompare, context_similarities, word_position

TEXT_A = "the bank of the river"
TEXT_B = "money in the bank"
VOCAB = sorted(set(TEXT_A + TEXT_B))


def trace_of(model, text):
    ids = torch.tensor([VOCAB.index(c) for c in text])
    return model.trace(ids, token_text=list(text))


@pytest.mark.parametrize("config", [
    LstmConfig(vocab_size=len(VOCAB), embedding_size=6, hidden_size=8, num_layers=2),
    TransformerConfig(vocab_size=len(VOCAB), d_model=8, num_heads=2, num_layers=2, d_ff=16,
                      context_length=32, dropout=0.0),
], ids=["lstm", "transformer"])
def test_the_word_is_compared_layer_by_layer_from_the_traces(config):
    torch.manual_seed(0)
    model = build_model(config).eval()
    first, second = trace_of(model, TEXT_A), trace_of(model, TEXT_B)
    a, b = word_position(first, "bank"), word_position(second, "bank")
    assert (a, b) == (7, 16)  # the token that ends the word: its 'k'
    names, sims = context_similarities(first, second, "bank")
    assert names[1:] == ["layer 0", "layer 1"]
    key = "h" if isinstance(config, LstmConfig) else "resid"
    for name, sim in zip(names[1:], sims[1:], strict=True):
        layer_a = next(layer for layer in first.layers if layer.name == name)
        layer_b = next(layer for layer in second.layers if layer.name == name)
        u, v = np.asarray(layer_a.values[key])[a], np.asarray(layer_b.values[key])[b]
        assert sim == pytest.approx(float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)))
        assert sim < 1 - 1e-6  # the contexts differ, so do the states
    if isinstance(config, LstmConfig):
        assert names[0] == "input E[x]"
        assert sims[0] == pytest.approx(1.0)  # one row of E, wherever the word stands
    else:
        assert names[0] == "input E[x] + position"
        assert sims[0] < 1.0  # E[x] plus a different position
    with pytest.raises(ValueError, match="'river' is not in the second sentence"):
        context_similarities(first, second, "river")


def test_the_tab_asks_for_the_second_sentence_and_draws_the_cosines(qtbot):
    torch.manual_seed(1)
    model = build_model(LstmConfig(vocab_size=len(VOCAB), embedding_size=6,
                                   hidden_size=8)).eval()
    asked = []

    def probe(text, on_trace):
        asked.append(text)
        on_trace(trace_of(model, text))
        return True

    view = ContextCompare(probe)
    qtbot.addWidget(view)
    assert not view.compare()  # nothing probed yet: it says so
    assert "first" in view.summary.text()
    view.set_first(trace_of(model, TEXT_A))
    view.other.setText(TEXT_B)
    view.word.setText("bank")
    assert view.compare() and asked == [TEXT_B]
    names, sims = view.result
    assert names[0] == "input E[x]" and len(sims) == 2
    assert "Static: the input row of 'bank' gives cosine 1.000" in view.summary.text()
    assert view._data()[1][0] == names
