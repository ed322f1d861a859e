"""Parameter counts and summary tables against the seeds' Keras tables (SEEDS 3.3, 3.6)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch import nn

from workbench.core.config.models import GruConfig, LstmConfig, RnnConfig, TransformerConfig
from workbench.core.models import build_model
from workbench.core.models.summary import count_params, matched_size, summarize, summarize_module


class SeedClassifier(nn.Module):
    """Seed 002 L386-411 / L1086-1112 in torch: embedding, (bi)LSTM x2, Dense on the last step."""

    def __init__(self, vocab: int, dim: int, units: int, classes: int, bidirectional: bool):
        super().__init__()
        width = units * (2 if bidirectional else 1)
        self.embedding = nn.Embedding(vocab, dim)
        self.dropout = nn.Dropout(0.5)
        self.lstm = nn.LSTM(dim, units, batch_first=True, bidirectional=bidirectional)
        self.lstm_1 = nn.LSTM(width, units, batch_first=True, bidirectional=bidirectional)
        self.dense = nn.Linear(width, classes)

    def forward(self, tokens):
        x, _ = self.lstm(self.dropout(self.embedding(tokens)))
        x, _ = self.lstm_1(x)
        return self.dense(x[:, -1])


def _seed_summary(**kwargs):
    return summarize_module(SeedClassifier(**kwargs), arch="seed", title="seed", batch_size=2,
                            seq_len=5)


def test_seed_002_lstm_classifier_torch_and_keras_counts():
    summary = _seed_summary(vocab=5000, dim=64, units=64, classes=6, bidirectional=False)
    assert summary.total_params == 386_950
    assert summary.keras_params == 386_438  # Keras: one bias per gate
    table = [(r.name, r.params, r.keras_params) for r in summary.rows]
    assert table == [
        ("embedding", 320_000, 320_000),
        ("dropout", 0, 0),
        ("lstm", 33_280, 33_024),
        ("lstm_1", 33_280, 33_024),
        ("dense", 390, 390),
    ]
    assert summary.rows[0].output_shape == "(None, T, 64)"
    assert summary.rows[-1].output_shape == "(None, 6)"


def test_seed_002_bidirectional_classifier_counts():
    summary = _seed_summary(vocab=20_000, dim=128, units=64, classes=1, bidirectional=True)
    assert summary.total_params == 2_758_785
    assert summary.keras_params == 2_757_761
    assert [r.keras_params for r in summary.rows if r.kind == "LSTM"] == [98_816, 98_816]
    assert summary.rows[2].output_shape == "(None, T, 128)"


def test_seed_002_simple_rnn_shapes():
    # numpy RNN (L103-117): W (64, 32), U (64, 64), b (64,) -> 6,208 in Keras, 6,272 in torch
    assert count_params(nn.RNN(32, 64)) == (6_272, 6_208)
    # SimpleRNN(16) on 14 features (L301-315): 16 * (16 + 14 + 1) = 496
    assert count_params(nn.RNN(14, 16))[1] == 496
    # GRU keeps both biases in Keras (reset_after=True) as in torch: no difference
    assert count_params(nn.GRU(14, 16))[0] == count_params(nn.GRU(14, 16))[1]


def _analytic_recurrent(config, gates: int) -> int:
    e, h, v, layers = config.embedding_size, config.hidden_size, config.vocab_size, \
        config.num_layers
    rnn = gates * (h * e + h * h + 2 * h) + (layers - 1) * gates * (h * h + h * h + 2 * h)
    head = (0 if config.tie_weights else h * v) + v
    return v * e + rnn + head


@pytest.mark.parametrize("config_type,gates", [(RnnConfig, 1), (LstmConfig, 4), (GruConfig, 3)])
def test_summary_counts_match_the_built_model_and_the_formula(config_type, gates):
    config = config_type(vocab_size=97, embedding_size=32, hidden_size=48, num_layers=2,
                         dropout=0.1)
    summary = summarize(config, batch_size=2, seq_len=7)
    built = sum(p.numel() for p in build_model(config).parameters())
    assert summary.total_params == built == _analytic_recurrent(config, gates)
    assert sum(r.params for r in summary.rows) == built
    names = [r.name for r in summary.rows]
    assert names[0] == "embedding" and names[-1] == "head"
    assert [r.output_shape for r in summary.rows if r.name.endswith("layer 2")] == ["(None, T, 48)"]
    assert summary.rows[-1].output_shape == "(None, T, 97)"
    # forward FLOPs/token: 2 x (recurrent weights + head weights)
    assert summary.flops_per_token == 2 * (built - 97 * 32 - 97 - gates * 2 * 2 * 48)


def test_tied_weights_count_once_and_say_so():
    config = LstmConfig(vocab_size=50, embedding_size=32, hidden_size=32, tie_weights=True)
    summary = summarize(config, batch_size=1, seq_len=4)
    assert summary.total_params == _analytic_recurrent(config, 4)
    head = summary.rows[-1]
    assert head.params == 50 and "shared with embedding" in head.note


@pytest.mark.slow
def test_transformer_table_counts_and_attention_flops():
    config = TransformerConfig(vocab_size=100, d_model=32, num_heads=4, num_layers=2, d_ff=64,
                               context_length=16, positional="learned", norm_placement="pre",
                               tie_weights=False)
    summary = summarize(config, batch_size=2)
    d, f = 32, 64
    block = 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d
    expected = 100 * d + 16 * d + 2 * block + 2 * d + (d * 100 + 100)
    assert summary.total_params == expected == summary.keras_params
    kinds = [r.kind for r in summary.rows]
    assert kinds == ["Embedding", "Embedding", "Dropout", "Block", "Block", "LayerNorm", "Linear"]
    assert summary.rows[1].output_shape == "(T, 32) added"
    matmuls = 2 * (2 * (4 * d * d + 2 * d * f) + d * 100)
    attention = 2 * 2 * 2 * d * 16 * 17 // 2 // 16  # two layers, causal average
    assert summary.flops_per_token == matmuls + attention


@pytest.mark.slow
def test_memory_estimate_grows_with_batch_and_covers_adam():
    config = GruConfig(vocab_size=200, hidden_size=64)
    small, large = summarize(config, batch_size=4, seq_len=32), summarize(config, 16, 32)
    assert large.activation_bytes == 4 * small.activation_bytes
    assert small.training_state_bytes == 3 * small.param_bytes == 12 * small.total_params
    assert small.training_bytes > small.param_bytes * 4


@pytest.mark.parametrize("config", [
    GruConfig(vocab_size=5000, hidden_size=128),
    RnnConfig(vocab_size=5000, hidden_size=128, embedding_size=64),
    TransformerConfig(vocab_size=5000, num_heads=4),
    LstmConfig(vocab_size=5000, embedding_size=64, hidden_size=64, tie_weights=True),
])
def test_matched_size_is_within_a_few_percent(config):
    target = summarize(LstmConfig(vocab_size=5000, hidden_size=256), 1, 8).total_params
    width, count = matched_size(config, target)
    assert abs(count - target) / target < 0.03
    fields = {"d_model": width} if hasattr(config, "d_model") else {"hidden_size": width}
    if getattr(config, "tie_weights", False) and hasattr(config, "hidden_size"):
        fields["embedding_size"] = width
    matched = dataclasses.replace(config, **fields)
    assert matched.problems() == []
    assert sum(p.numel() for p in build_model(matched).parameters()) == count


def test_summary_runs_without_allocating_weights():
    huge = LstmConfig(vocab_size=200_000, embedding_size=1024, hidden_size=4096, num_layers=4)
    summary = summarize(huge, batch_size=1, seq_len=4)  # meta device: shapes only
    assert summary.total_params > 500_000_000
    assert torch.get_default_device().type == "cpu"
