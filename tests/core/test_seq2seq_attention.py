"""Each attention score against a numpy transcription of its equation (SEEDS 2.4 T2-T3), and the
masked softmax: weights sum to 1 over the real source positions and are exactly 0 on padding."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.models.attention_scores import AttentionScore, masked_softmax

D = 6


def numpy_scores(kind: str, module: AttentionScore, s: np.ndarray, h: np.ndarray) -> np.ndarray:
    """e_ij for one query s_i (D,) against every h_j (S, D), written out per pair."""
    out = np.zeros(len(h))
    for j, h_j in enumerate(h):
        if kind == "dot":  # Luong: s_i^T h_j
            out[j] = s @ h_j
        elif kind == "scaled":  # 000: s_i^T h_j / sqrt(d_h)
            out[j] = s @ h_j / np.sqrt(len(h_j))
        elif kind == "general":  # Luong: s_i^T W_a h_j
            W = module.W_a.weight.detach().numpy().astype(np.float64)
            out[j] = s @ W @ h_j
        else:  # additive, 001's fc(s, h): v_a^T tanh(W_a s_i + U_a h_j)
            W = module.W_a.weight.detach().numpy().astype(np.float64)
            U = module.U_a.weight.detach().numpy().astype(np.float64)
            b = module.U_a.bias.detach().numpy().astype(np.float64)
            v = module.v_a.weight.detach().numpy().astype(np.float64)[0]
            out[j] = v @ np.tanh(W @ s + U @ h_j + b)
    return out


@pytest.mark.parametrize("kind", ["dot", "scaled", "general", "additive"])
def test_each_score_is_its_equation(kind):
    torch.manual_seed(3)
    module = AttentionScore(kind, D)
    queries, states = torch.randn(2, 3, D), torch.randn(2, 5, D)
    scores = module(queries, module.keys(states)).detach().numpy()  # (B, T, S)
    for b in range(2):
        for i in range(3):
            expected = numpy_scores(kind, module, queries[b, i].double().numpy(),
                                    states[b].double().numpy())
            np.testing.assert_allclose(scores[b, i], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["dot", "scaled", "general", "additive"])
def test_weights_are_a_softmax_over_the_real_positions_and_zero_on_padding(kind):
    torch.manual_seed(4)
    module = AttentionScore(kind, D)
    queries, states = torch.randn(2, 3, D), torch.randn(2, 5, D)
    mask = torch.tensor([[True] * 5, [True, True, False, False, False]])
    weights = masked_softmax(module(queries, module.keys(states)), mask)
    assert torch.equal(weights[1, :, 2:], torch.zeros(3, 3))  # exactly 0, not tiny
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3))
    # alpha_ij = exp(e_ij) / sum_k exp(e_ik) over the two real positions only
    e = module(queries[1:], module.keys(states[1:, :2])).detach().double().numpy()[0]
    expected = np.exp(e) / np.exp(e).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(weights[1, :, :2].detach().numpy(), expected, rtol=1e-5)
    # padded states carry no information: changing them changes no weight
    changed = states.clone()
    changed[1, 2:] = 100.0
    again = masked_softmax(module(queries, module.keys(changed)), mask)
    torch.testing.assert_close(again, weights)


def test_the_one_table_of_scores_is_what_the_form_the_model_and_the_cards_offer():
    """Every score of core/config/attention_scores.py is a choice of the form with its
    equation in the help, has arithmetic (this file's numpy transcriptions cover exactly those),
    and an unknown name is refused by the model."""
    import dataclasses

    from workbench.core.config.attention_scores import COMPUTED, SCORES, form_help
    from workbench.core.config.seq2seq import RnnSeq2seqConfig

    field = {f.name: f for f in dataclasses.fields(RnnSeq2seqConfig)}["attention"]
    assert tuple(field.metadata["choices"]) == tuple(SCORES)
    for name, kind in SCORES.items():
        assert f"{name}: " in form_help() and kind.equation.split(": ", 1)[-1] in form_help()
    assert COMPUTED == ("dot", "scaled", "general", "additive")  # each has a test above
    for name in COMPUTED:
        module = AttentionScore(name, D)
        queries, states = torch.randn(1, 2, D), torch.randn(1, 3, D)
        assert module(queries, module.keys(states)).shape == (1, 2, 3)
    with pytest.raises(ValueError, match="unknown attention score 'luong'"):
        AttentionScore("luong", D)
