"""Ablation switches of the model settings change what they should, in the fast path and the
trace alike (issue 13, items 4 and 7)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import RnnConfig, TransformerConfig
from workbench.core.models import build_model


def transformer(**ablation):
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=20, d_model=32, num_heads=4, num_layers=2, d_ff=64,
                               context_length=16, dropout=0.0, **ablation)
    return build_model(config).eval()


TOKENS = torch.tensor([[3, 7, 11, 5, 9, 4, 13, 8]])


def logits_of(model, tokens=TOKENS):
    with torch.no_grad():
        return model(tokens)[0][0]


@pytest.mark.parametrize("ablation", [{}, {"causal_mask": False}, {"scale_scores": False},
                                      {"positional": "none"}, {"positional": "sinusoidal"}])
def test_trace_agrees_with_the_fast_path_under_every_ablation(ablation):
    model = transformer(**ablation)
    trace = model.trace(TOKENS[0])
    assert np.allclose(trace.logits, logits_of(model).numpy(), atol=1e-5)


def test_without_the_causal_mask_position_t_reads_position_t_plus_1():
    changed = TOKENS.clone()
    changed[0, 5] = 17  # change the token at t + 1 = 5
    masked, unmasked = transformer(), transformer(causal_mask=False)
    before = logits_of(masked)[:5] - logits_of(masked, changed)[:5]
    assert torch.allclose(before, torch.zeros_like(before), atol=1e-6)  # the past cannot see it
    after = logits_of(unmasked)[4] - logits_of(unmasked, changed)[4]
    assert after.abs().max() > 1e-5  # position 4 now depends on position 5 (a fresh model
    # has std-0.02 weights, so the change is small, but far above float noise)
    weights = unmasked.trace(TOKENS[0]).layers[0].values["attn"]
    assert weights[:, 0, 1:].sum() > 0  # the first token attends to later ones


def test_without_positions_a_permuted_input_permutes_the_outputs():
    order = torch.tensor([4, 2, 7, 0, 6, 1, 5, 3])
    permuted = TOKENS[:, order]
    plain = transformer(positional="none", causal_mask=False)  # permutation-equivariant
    assert torch.allclose(logits_of(plain)[order], logits_of(plain, permuted), atol=1e-5)
    learned = transformer(causal_mask=False)  # with positions the order matters
    assert not torch.allclose(logits_of(learned)[order], logits_of(learned, permuted), atol=1e-3)
    assert "positional" not in plain.trace(TOKENS[0]).extras


def test_without_scaling_the_scores_are_the_raw_dot_products():
    model = transformer(scale_scores=False)
    layer = model.trace(TOKENS[0]).layers[0].values
    raw = np.einsum("htd,hsd->hts", layer["q"], layer["k"])
    finite = np.isfinite(layer["scores"])
    assert np.allclose(layer["scores"][finite], raw[finite], atol=1e-5)
    scaled = transformer().trace(TOKENS[0]).layers[0].values
    d_k = scaled["q"].shape[-1]
    raw = np.einsum("htd,hsd->hts", scaled["q"], scaled["k"]) / np.sqrt(d_k)
    assert np.allclose(scaled["scores"][finite], raw[finite], atol=1e-5)


def test_identity_initialisation_sets_u_to_i_and_carries_gradients_further_back():
    def elman(init):
        torch.manual_seed(1)
        config = RnnConfig(vocab_size=20, embedding_size=16, hidden_size=32,
                           nonlinearity="relu", recurrent_init=init)
        return build_model(config)

    identity = elman("identity")
    assert torch.equal(identity.rnn.weight_hh_l0, torch.eye(32))
    assert not identity.rnn.bias_ih_l0.any() and not identity.rnn.bias_hh_l0.any()
    tokens = torch.randint(4, 20, (1, 40), generator=torch.Generator().manual_seed(2))

    def reach(model):  # how much of the last loss's gradient arrives 30 steps back
        norms = model.hidden_gradients(tokens[0, :-1], tokens[0, 1:])["layer 0"]
        return norms[5] / norms[-1]

    assert reach(identity) > 10 * reach(elman("default"))
