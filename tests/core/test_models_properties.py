"""Properties over random small configurations: the fast path and the trace agree, state carries
across calls, clamps hold, and snapshots rebuild the same model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.config.models import (
    MODEL_CONFIGS,
    GruConfig,
    LstmConfig,
    RnnConfig,
    TransformerConfig,
)
from workbench.core.models import build_model
from workbench.core.recurrent_cells import CELLS
from workbench.core.snapshot.rebuild import model_from_snapshot, snapshot_of

recurrent_configs = st.builds(
    lambda cls, e, h, layers, vocab, tie: cls(
        vocab_size=vocab, embedding_size=h if tie else e, hidden_size=h, num_layers=layers,
        tie_weights=tie),
    st.sampled_from([MODEL_CONFIGS[name] for name in CELLS]),  # every cell, peephole too
    st.integers(2, 12), st.integers(2, 12), st.integers(1, 3), st.integers(5, 40), st.booleans(),
)
transformer_configs = st.builds(
    lambda heads, per_head, layers, vocab, placement, positions: TransformerConfig(
        vocab_size=vocab, d_model=heads * per_head, num_heads=heads, num_layers=layers,
        d_ff=16, context_length=24, dropout=0.0, norm_placement=placement,
        positional=positions),
    st.integers(1, 4), st.sampled_from([8, 12]), st.integers(1, 3), st.integers(5, 40),
    st.sampled_from(["post", "pre"]), st.sampled_from(["sinusoidal", "learned"]),
)


@settings(max_examples=25, deadline=None)
@given(config=st.one_of(recurrent_configs, transformer_configs), seed=st.integers(0, 10_000),
       length=st.integers(1, 20))
@pytest.mark.slow
def test_forward_and_trace_agree(config, seed, length):
    torch.manual_seed(seed)
    model = build_model(config).eval()
    tokens = torch.randint(0, config.vocab_size, (length,))
    with torch.no_grad():
        logits, _ = model(tokens.unsqueeze(0))
    trace = model.trace(tokens)
    assert trace.logits.shape == (length, config.vocab_size)
    np.testing.assert_allclose(trace.logits, logits[0].numpy(), atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(config=recurrent_configs, seed=st.integers(0, 10_000), split=st.integers(1, 9))
@pytest.mark.slow
def test_state_carries_across_calls(config, seed, split):
    torch.manual_seed(seed)
    model = build_model(config).eval()
    tokens = torch.randint(0, config.vocab_size, (1, 10))
    with torch.no_grad():
        whole, _ = model(tokens)
        first, state = model(tokens[:, :split])
        second, _ = model(tokens[:, split:], state)
        stepwise, _ = model.forward_clamped(tokens[:, split:], state, None)
    np.testing.assert_allclose(torch.cat([first, second], 1).numpy(), whole.numpy(), atol=1e-5)
    np.testing.assert_allclose(stepwise.numpy(), second.numpy(), atol=1e-5)
    carried = model.trace(tokens[0, split:], state=state)
    np.testing.assert_allclose(carried.logits, second[0].numpy(), atol=1e-5)


def test_clamping_a_unit_fixes_it_and_changes_what_follows():
    torch.manual_seed(0)
    model = build_model(LstmConfig(vocab_size=20, embedding_size=6, hidden_size=8,
                                   num_layers=2)).eval()
    tokens = torch.randint(0, 20, (12,))
    free = model.trace(tokens)
    clamped = model.trace(tokens, clamp={"layer": 0, "unit": 3, "value": 0.5})
    assert np.all(clamped.layer("layer 0").values["h"][:, 3] == 0.5)
    assert not np.allclose(free.layer("layer 1").values["h"], clamped.layer("layer 1").values["h"])
    logits, _ = model.forward_clamped(tokens.unsqueeze(0), None,
                                      {"layer": 0, "unit": 3, "value": 0.5})
    np.testing.assert_allclose(clamped.logits, logits[0].detach().numpy(), atol=1e-5)


def test_clamping_a_head_to_zero_changes_the_residual_stream():
    torch.manual_seed(0)
    model = build_model(TransformerConfig(vocab_size=20, d_model=8, num_heads=2, num_layers=1,
                                          d_ff=16, context_length=16)).eval()
    tokens = torch.randint(0, 20, (10,))
    free = model.trace(tokens)
    off = model.trace(tokens, clamp={"layer": 0, "head": 1, "value": 0.0})
    np.testing.assert_allclose(free.layer("layer 0").values["attn"],
                               off.layer("layer 0").values["attn"])  # weights unchanged
    assert not np.allclose(free.logits, off.logits)


def test_snapshot_rebuilds_the_same_model_on_cpu():
    torch.manual_seed(0)
    model = build_model(GruConfig(vocab_size=15, embedding_size=4, hidden_size=6))
    snapshot = snapshot_of(model, {"kind": "char"}, step=7, metrics={"val_loss": 2.0},
                           run_name="r")
    assert snapshot.arch == "gru" and snapshot.step == 7
    assert all(isinstance(w, np.ndarray) for w in snapshot.weights.values())
    rebuilt = model_from_snapshot(snapshot)
    tokens = torch.randint(0, 15, (1, 9))
    model.eval()
    np.testing.assert_allclose(rebuilt(tokens)[0].detach().numpy(),
                               model(tokens)[0].detach().numpy(), atol=1e-6)
    # the snapshot is a copy: training the live model does not change it
    with torch.no_grad():
        model.head.bias.add_(1.0)
    assert not np.allclose(snapshot.weights["head.bias"], model.head.bias.detach().numpy())


def test_gradient_through_time_fades_in_an_elman_rnn_with_small_weights():
    torch.manual_seed(0)
    model = build_model(RnnConfig(vocab_size=10, embedding_size=4, hidden_size=16))
    with torch.no_grad():
        model.rnn.weight_hh_l0.mul_(0.3)  # contractive recurrence: gradients vanish
    tokens = torch.randint(0, 10, (30,))
    targets = torch.randint(0, 10, (30,))
    norms = model.hidden_gradients(tokens, targets)["layer 0"]
    assert norms.shape == (30,)
    assert norms[0] < norms[-1] * 0.1
