"""The trace records the residual stream through each transformer block, both LayerNorms and
the feed-forward layer (issue 33), and the records obey the block's equations on its own
weights, post-LN and pre-LN alike."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import TransformerConfig
from workbench.core.models import build_model


def layer_norm(x, gamma, beta, eps):
    mu = x.mean(-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) + beta


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_the_stream_through_a_block_follows_its_equations(placement):
    torch.manual_seed(3)
    config = TransformerConfig(vocab_size=20, d_model=16, num_heads=2, num_layers=2, d_ff=24,
                               context_length=16, dropout=0.0, norm_placement=placement)
    model = build_model(config).eval()
    trace = model.trace(torch.tensor([3, 5, 7, 2, 9, 4]))
    weights = {k: v.detach().numpy().astype(np.float64) for k, v in model.state_dict().items()}
    for index, layer in enumerate(trace.layers):
        v = {k: np.asarray(a, dtype=np.float64) for k, a in layer.values.items()}
        prefix = f"blocks.{index}."
        for norm in ("1", "2"):
            expected = layer_norm(v[f"ln{norm}_in"], weights[f"{prefix}norm{norm}.weight"],
                                  weights[f"{prefix}norm{norm}.bias"], 1e-5)
            assert np.allclose(v[f"ln{norm}_out"], expected, atol=1e-4), (placement, norm)
        hidden = np.maximum(0.0, v["ffn_hidden"])
        assert np.array_equal(hidden, v["ffn_hidden"])  # after the ReLU
        ffn_out = hidden @ weights[f"{prefix}ff_out.weight"].T + weights[f"{prefix}ff_out.bias"]
        assert np.allclose(v["ffn_out"], ffn_out, atol=1e-4)
        if placement == "pre":  # x + Sublayer(LN(x)): the stream itself is never normalised
            assert np.allclose(v["resid_mid"], v["resid_in"] + v["attn_out"], atol=1e-5)
            assert np.allclose(v["resid"], v["resid_mid"] + v["ffn_out"], atol=1e-5)
        else:  # LN(x + Sublayer(x))
            assert np.allclose(v["ln1_in"], v["resid_in"] + v["attn_out"], atol=1e-5)
            assert np.allclose(v["resid"], v["ln2_out"], atol=1e-6)
        if index:
            before = np.asarray(trace.layers[index - 1].values["resid"])
            assert np.allclose(v["resid_in"], before, atol=1e-6)  # one stream, block to block
    # the stream starts as what the trace calls the embeddings (tokens and positions summed)
    assert np.allclose(trace.layers[0].values["resid_in"], trace.embeddings, atol=1e-6)
