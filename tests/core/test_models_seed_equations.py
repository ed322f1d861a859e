"""Each cell's trace equals a direct numpy transcription of the seed equations (SEEDS.md 2.3-2.5),
on the same parameters, and the trace's logits equal the fast path's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import GruConfig, LstmConfig, RnnConfig, TransformerConfig
from workbench.core.models import build_model
from workbench.core.models.transformer import sinusoidal_encoding

V, T = 23, 9


def sigma(x):
    return 1.0 / (1.0 + np.exp(-x))


def weights(model, name):
    return getattr(model.rnn, name).detach().double().numpy()


def probe(seed=0):
    return torch.randint(0, V, (T,), generator=torch.Generator().manual_seed(seed))


def embedded(model, tokens):
    return model.embedding(tokens).detach().double().numpy()  # e_t = E x_t (9.6)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_elman_rnn_matches_slp3_9_3(nonlinearity):
    torch.manual_seed(1)
    model = build_model(RnnConfig(vocab_size=V, embedding_size=6, hidden_size=5,
                                  nonlinearity=nonlinearity))
    tokens = probe()
    trace = model.trace(tokens)
    W, U = weights(model, "weight_ih_l0"), weights(model, "weight_hh_l0")
    b = weights(model, "bias_ih_l0") + weights(model, "bias_hh_l0")
    g = np.tanh if nonlinearity == "tanh" else (lambda a: np.maximum(a, 0))
    h = np.zeros(5)
    for t, e in enumerate(embedded(model, tokens)):
        h = g(U @ h + W @ e + b)  # h_t = g(U h_{t-1} + W x_t)
        np.testing.assert_allclose(trace.layer("layer 0").values["h"][t], h, atol=1e-5)


def test_lstm_matches_slp3_9_19_to_9_26():
    torch.manual_seed(2)
    model = build_model(LstmConfig(vocab_size=V, embedding_size=6, hidden_size=4))
    tokens = probe(1)
    values = model.trace(tokens).layer("layer 0").values
    W_all, U_all = weights(model, "weight_ih_l0"), weights(model, "weight_hh_l0")
    b_all = weights(model, "bias_ih_l0") + weights(model, "bias_hh_l0")
    H = 4
    blocks = {name: slice(k * H, (k + 1) * H) for k, name in enumerate("ifgo")}  # torch order
    W = {n: W_all[s] for n, s in blocks.items()}
    U = {n: U_all[s] for n, s in blocks.items()}
    b = {n: b_all[s] for n, s in blocks.items()}
    h, c = np.zeros(H), np.zeros(H)
    for t, x in enumerate(embedded(model, tokens)):
        f = sigma(U["f"] @ h + W["f"] @ x + b["f"])  # 9.19
        k = c * f  # 9.20
        g = np.tanh(U["g"] @ h + W["g"] @ x + b["g"])  # 9.21
        i = sigma(U["i"] @ h + W["i"] @ x + b["i"])  # 9.22
        j = g * i  # 9.23
        c = j + k  # 9.24
        o = sigma(U["o"] @ h + W["o"] @ x + b["o"])  # 9.25
        h = o * np.tanh(c)  # 9.26
        for name, value in {"f": f, "g": g, "i": i, "o": o, "c": c, "h": h}.items():
            np.testing.assert_allclose(values[name][t], value, atol=1e-5, err_msg=name)


def test_gru_update_gate_is_the_complement_of_seed_001():
    """Seed 001: h_t = (1 − z_t) h_{t−1} + z_t h̃_t. Torch's z is 1 − z_t (the trace says so)."""
    torch.manual_seed(3)
    model = build_model(GruConfig(vocab_size=V, embedding_size=6, hidden_size=4))
    tokens = probe(2)
    layer = model.trace(tokens).layer("layer 0")
    assert "1 − z" in layer.convention
    W_all, U_all = weights(model, "weight_ih_l0"), weights(model, "weight_hh_l0")
    bi, bh = weights(model, "bias_ih_l0"), weights(model, "bias_hh_l0")
    H = 4
    r_, z_, n_ = (slice(k * H, (k + 1) * H) for k in range(3))
    h = np.zeros(H)
    for t, x in enumerate(embedded(model, tokens)):
        r = sigma(W_all[r_] @ x + bi[r_] + U_all[r_] @ h + bh[r_])
        z_seed = 1.0 - sigma(W_all[z_] @ x + bi[z_] + U_all[z_] @ h + bh[z_])
        # torch applies r after U_n h (seed 001 writes r ⊙ h before the product)
        h_tilde = np.tanh(W_all[n_] @ x + bi[n_] + r * (U_all[n_] @ h + bh[n_]))
        h = (1 - z_seed) * h + z_seed * h_tilde  # seed 001's update
        np.testing.assert_allclose(layer.values["r"][t], r, atol=1e-5)
        np.testing.assert_allclose(layer.values["z"][t], 1.0 - z_seed, atol=1e-5)
        np.testing.assert_allclose(layer.values["n"][t], h_tilde, atol=1e-5)
        np.testing.assert_allclose(layer.values["h"][t], h, atol=1e-5)


def test_sinusoidal_encoding_follows_the_formula():
    table = sinusoidal_encoding(50, 16).double().numpy()
    for pos in (0, 1, 7, 49):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert table[pos, 2 * i] == pytest.approx(np.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1] == pytest.approx(np.cos(angle), abs=1e-6)
    assert np.allclose(table[0, 0::2], 0) and np.allclose(table[0, 1::2], 1)


def layer_norm(x, gamma, beta, eps):
    mu = x.mean(-1, keepdims=True)
    sd = x.std(-1, keepdims=True, ddof=0)  # the population standard deviation
    return gamma * (x - mu) / np.sqrt(sd**2 + eps) + beta


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_transformer_block_matches_scaled_dot_product_multi_head_attention(placement):
    torch.manual_seed(4)
    config = TransformerConfig(vocab_size=V, d_model=8, num_heads=2, num_layers=1, d_ff=16,
                               context_length=16, dropout=0.0, norm_placement=placement)
    model = build_model(config).eval()
    tokens = probe(3)
    trace = model.trace(tokens)
    block = model.blocks[0]

    def p(t):
        return t.detach().double().numpy()

    x = np.sqrt(8) * p(model.embedding(tokens)) + p(model.sinusoid[:T])  # √d E[tokens] + P
    np.testing.assert_allclose(trace.extras["positional"], p(model.sinusoid[:T]), atol=1e-6)
    Wqkv, bqkv = p(block.qkv.weight), p(block.qkv.bias)
    n1 = (p(block.norm1.weight), p(block.norm1.bias), block.norm1.eps)
    n2 = (p(block.norm2.weight), p(block.norm2.bias), block.norm2.eps)
    inp = layer_norm(x, *n1) if placement == "pre" else x
    Q, K, Vv = np.split(inp @ Wqkv.T + bqkv, 3, axis=1)
    M = np.triu(np.full((T, T), -np.inf), k=1)  # causal mask
    heads, weights_all = [], []
    for h in range(2):
        q, k, v = (m[:, h * 4:(h + 1) * 4] for m in (Q, K, Vv))
        scores = q @ k.T / np.sqrt(4) + M  # Q K^T / sqrt(d_k) + M
        a = np.exp(scores - scores.max(1, keepdims=True))
        a /= a.sum(1, keepdims=True)
        weights_all.append(a)
        heads.append(a @ v)
    attended = np.concatenate(heads, axis=1) @ p(block.proj.weight).T + p(block.proj.bias)

    def ffn(z):
        hidden = np.maximum(0, z @ p(block.ff_in.weight).T + p(block.ff_in.bias))
        return hidden @ p(block.ff_out.weight).T + p(block.ff_out.bias)

    if placement == "post":
        x1 = layer_norm(x + attended, *n1)
        out = layer_norm(x1 + ffn(x1), *n2)
    else:
        x1 = x + attended
        out = x1 + ffn(layer_norm(x1, *n2))
    values = trace.layer("layer 0").values
    np.testing.assert_allclose(values["attn"], np.stack(weights_all), atol=1e-5)
    assert np.all(values["attn"][:, np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] == 0)
    np.testing.assert_allclose(values["attn"].sum(-1), 1.0, atol=1e-5)
    assert np.isneginf(values["scores"][0, 0, 1])
    np.testing.assert_allclose(values["resid"], out, atol=1e-4)


@pytest.mark.parametrize("config", [
    LstmConfig(vocab_size=V, embedding_size=8, hidden_size=8, num_layers=2, tie_weights=True),
    GruConfig(vocab_size=V, embedding_size=5, hidden_size=7, num_layers=3),
    RnnConfig(vocab_size=V, embedding_size=5, hidden_size=7, bidirectional=True),
    TransformerConfig(vocab_size=V, d_model=16, num_heads=4, num_layers=2, d_ff=32,
                      context_length=32, positional="learned"),
], ids=lambda c: c.arch)
def test_trace_logits_equal_forward_within_1e_5(config):
    torch.manual_seed(5)
    model = build_model(config).eval()
    tokens = probe(4)
    logits, _ = model(tokens.unsqueeze(0))
    np.testing.assert_allclose(model.trace(tokens).logits, logits[0].detach().numpy(), atol=1e-5)


def test_weight_tying_shares_one_matrix():
    model = build_model(LstmConfig(vocab_size=V, embedding_size=8, hidden_size=8,
                                   tie_weights=True))
    assert model.head.weight is model.embedding.weight
    untied = build_model(LstmConfig(vocab_size=V, embedding_size=8, hidden_size=8))
    assert untied.parameter_count() - model.parameter_count() == V * 8


def test_invalid_settings_are_refused_with_the_reason():
    from workbench.core.jobs import UserFacingError

    with pytest.raises(UserFacingError, match="must divide"):
        build_model(TransformerConfig(vocab_size=V, d_model=10, num_heads=4))
    with pytest.raises(UserFacingError, match="at least 1"):
        build_model(LstmConfig(vocab_size=V, num_layers=0))
    with pytest.raises(UserFacingError, match="tokenize a corpus"):
        build_model(LstmConfig())
