"""The transformer's Llama options (RMSNorm, rotary positions, gated SiLU FFN, grouped-query
attention, no biases) on models trained here: the fused forward, the KV cache and the
transcribed trace agree, in the decoder and the encoder, and the worked computation of a cell
equals the trace's attention; a config that cannot hold them says why."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import TransformerConfig, TransformerEncoderConfig
from workbench.core.models import build_model
from workbench.core.models.transformer_encoder import TransformerEncoder
from workbench.core.worked.attention import attention_computation

LLAMA = dict(positional="rope", norm="rmsnorm", norm_placement="pre", gated_ffn=True,
             activation="silu", kv_heads=2, linear_bias=False, head_bias=False)
SIZES = dict(vocab_size=40, d_model=32, num_heads=4, num_layers=2, d_ff=48, context_length=24,
             dropout=0.0)


def test_default_settings_build_the_course_transformer_unchanged():
    model = build_model(TransformerConfig(**SIZES))
    names = set(model.state_dict())
    assert "blocks.0.qkv.bias" in names and "blocks.0.ff_gate.weight" not in names
    assert model.blocks[0].qkv.weight.shape == (96, 32)
    assert isinstance(model.blocks[0].norm1, torch.nn.LayerNorm)


@pytest.mark.parametrize("options", [LLAMA, dict(LLAMA, kv_heads=0, norm_placement="post"),
                                     dict(positional="rope", kv_heads=1)],
                         ids=["llama", "post-mha", "rope-mqa"])
def test_forward_cache_and_trace_agree(options):
    torch.manual_seed(1)
    model = build_model(TransformerConfig(**SIZES, **options)).eval()
    ids = torch.randint(0, 40, (1, 14))
    with torch.no_grad():
        logits, _ = model(ids)
        out, cache = model.forward_cached(ids[:, :5], None)
        parts = [out]
        for i in range(5, 14):
            out, cache = model.forward_cached(ids[:, i:i + 1], cache)
            parts.append(out)
    trace = model.trace(ids)
    np.testing.assert_allclose(trace.logits, logits[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(torch.cat(parts, 1).numpy(), logits.numpy(), atol=1e-5)
    weights = {k: v.numpy() for k, v in model.state_dict().items()}
    for index, layer in enumerate(trace.layers):
        for head, i, j in ((0, 13, 2), (3, 7, 7)):
            worked = attention_computation(layer.values, weights, f"blocks.{index}.", head, i,
                                           j, trace.token_text)
            np.testing.assert_allclose(worked.values["alpha_row"], layer.values["attn"][head, i],
                                       atol=1e-5)
            np.testing.assert_allclose(worked.values["output"], layer.values["attn_out"][i],
                                       atol=1e-5)


def test_the_encoder_takes_the_options_too():
    torch.manual_seed(2)
    options = {k: v for k, v in LLAMA.items() if k != "head_bias"}
    encoder = TransformerEncoder(TransformerEncoderConfig(**SIZES, **options, cls_token=True))
    encoder.eval()
    ids = torch.randint(0, 40, (1, 9))
    with torch.no_grad():
        states = encoder(ids).states
    np.testing.assert_allclose(encoder.trace(ids).output.states.numpy(), states.numpy(),
                               atol=1e-5)


@pytest.mark.parametrize("options, words", [
    (dict(kv_heads=3), "Key/value heads (3) must divide the heads (4)"),
    (dict(positional="rope", d_model=24, num_heads=8), "d_model / heads (3) must be even"),
    (dict(norm="rmsnorm", norm_eps=0.0), "RMSNorm ε must lie between 0 and 1"),
])
def test_settings_that_cannot_be_built_are_named(options, words):
    config = TransformerConfig(**{**SIZES, **options})
    assert any(words in problem for problem in config.problems())
