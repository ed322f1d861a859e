"""Worked computations (the click on an attention cell or a gate) equal the trace's numbers:
they recompute in numpy, from the snapshot's weights, what the model computed in torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import (
    MODEL_CONFIGS,
    GruConfig,
    LstmConfig,
    RnnConfig,
    TransformerConfig,
)
from workbench.core.models import build_model
from workbench.core.worked.attention import attention_computation
from workbench.core.worked.recurrent import layer_input, step_computation

TOKENS = [5, 9, 3, 12, 7, 4, 10, 6, 8]


def weights_of(model) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("settings", [{}, {"norm_placement": "pre"},
                                      {"causal_mask": False, "scale_scores": False}])
def test_attention_weight_and_output_equal_the_trace(settings):
    torch.manual_seed(4)
    config = TransformerConfig(vocab_size=16, d_model=24, num_heads=3, num_layers=2, d_ff=32,
                               context_length=16, dropout=0.0, **settings)
    model = build_model(config).eval()
    trace = model.trace(torch.tensor(TOKENS))
    weights = weights_of(model)
    causal, scaled = config.causal_mask, config.scale_scores
    for layer_index, layer in enumerate(trace.layers):
        values = layer.values
        for head, i, j in ((0, 6, 2), (2, 8, 8), (1, 3, 5)):
            worked = attention_computation(values, weights, f"blocks.{layer_index}.", head, i, j,
                                           trace.token_text, causal, scaled)
            assert np.isclose(worked.values["alpha"], values["attn"][head, i, j], atol=1e-5)
            assert np.allclose(worked.values["alpha_row"], values["attn"][head, i], atol=1e-5)
            assert np.allclose(worked.values["head_out"], values["heads"][head, i], atol=1e-5)
            assert np.allclose(worked.values["output"], values["attn_out"][i], atol=1e-5)
            assert np.allclose(worked.values["q"], values["q"][head, i], atol=1e-5)
            if causal and j > i:
                assert worked.values["alpha"] == 0.0
    labels = [line.label for line in worked.lines]
    assert labels[:4] == ["query row", "query", "key", "score"]
    assert labels[-2:] == ["concatenation", "output"]


@pytest.mark.parametrize("config", [
    LstmConfig(vocab_size=16, embedding_size=6, hidden_size=5, num_layers=2),
    GruConfig(vocab_size=16, embedding_size=6, hidden_size=5, num_layers=2),
    RnnConfig(vocab_size=16, embedding_size=6, hidden_size=5, nonlinearity="relu"),
    RnnConfig(vocab_size=16, embedding_size=6, hidden_size=5),
    LstmConfig(vocab_size=16, embedding_size=6, hidden_size=5, num_layers=2,
               bidirectional=True),
    MODEL_CONFIGS["peephole_lstm"](vocab_size=16, embedding_size=6, hidden_size=5,
                                   num_layers=2),
], ids=["lstm", "gru", "rnn-relu", "rnn-tanh", "bilstm", "peephole"])
def test_one_recurrent_step_equals_the_trace(config):
    torch.manual_seed(5)
    model = build_model(config).eval()
    trace = model.trace(torch.tensor(TOKENS))
    weights = weights_of(model)
    for layer in trace.layers:
        inputs = layer_input(trace, layer.name)
        for t, unit in ((0, 1), (4, 3), (8, 0)):
            worked = step_computation(config.arch, layer.name, layer.values, inputs, weights, t,
                                      unit, trace.token_text,
                                      getattr(config, "nonlinearity", "tanh"))
            for gate, value in worked.values.items():
                expected = (1 - layer.values["z"][t, unit] if gate == "z_course"
                            else layer.values[gate][t, unit])
                assert np.isclose(value, expected, atol=1e-5), (layer.name, gate, t)
            assert "h" in worked.values


def test_a_cell_outside_the_map_is_refused_with_its_size():
    torch.manual_seed(0)
    model = build_model(TransformerConfig(vocab_size=16, d_model=8, num_heads=2, num_layers=1,
                                          d_ff=8, context_length=16, dropout=0.0)).eval()
    trace = model.trace(torch.tensor(TOKENS[:4]))
    with pytest.raises(ValueError, match="outside the 4×4 map"):
        attention_computation(trace.layers[0].values, weights_of(model), "blocks.0.", 0, 4, 0,
                              trace.token_text)
