"""Heads on encoders: pooling against numpy transcriptions of SLP3 9.4.2, padding changes no
logit, trace equals forward for the task models, the sigmoid output is binary cross-entropy,
and seed 002's parameter tables come out of the summary."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.config.models import (
    GruConfig,
    LstmConfig,
    TransformerEncoderConfig,
    config_to_dict,
)
from workbench.core.config.task_models import (
    ClassifierModelConfig,
    MaskedLmModelConfig,
    TaggerModelConfig,
)
from workbench.core.models import build_model
from workbench.core.models.encoder import EncoderOutput
from workbench.core.models.heads import Pooling, two_class_logits
from workbench.core.models.summary import summarize


def numpy_pool(states: np.ndarray, length: int, how: str, w: np.ndarray | None = None,
               directions: int = 1) -> np.ndarray:
    """One row, transcribed: the real states are h_1 … h_n with n = length."""
    h = states[:length]
    if how == "mean":
        return h.sum(axis=0) / length  # (9.14)
    if how == "max":
        return h.max(axis=0)
    if how == "attention":
        scores = h @ w
        alpha = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        return (alpha[:, None] * h).sum(axis=0)
    if directions == 2:  # [h_n^f; h_1^b]
        half = h.shape[1] // 2
        return np.concatenate([h[-1, :half], h[0, half:]])
    return h[-1]


@pytest.mark.parametrize("how,directions", [("last", 1), ("last", 2), ("mean", 1), ("max", 1),
                                            ("attention", 1)])
def test_pooling_matches_the_numpy_transcription(how, directions):
    torch.manual_seed(0)
    states = torch.randn(3, 6, 8) - 2.0  # negative values: max must not pick padding's 0
    lengths = [6, 2, 4]
    mask = torch.arange(6)[None, :] < torch.tensor(lengths)[:, None]
    states = states * mask.unsqueeze(-1)
    pool = Pooling(how, 8, directions)
    pooled, weights = pool(EncoderOutput(states, mask))
    w = pool.query.weight.detach().numpy()[0] if how == "attention" else None
    for row, length in enumerate(lengths):
        expected = numpy_pool(states[row].numpy(), length, how, w, directions)
        np.testing.assert_allclose(pooled[row].detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    if how == "attention":
        assert torch.all(weights[~mask] == 0)  # padding gets exactly no weight
        torch.testing.assert_close(weights.sum(-1), torch.ones(3))


def classifier(encoder, **head) -> ClassifierModelConfig:
    return ClassifierModelConfig(encoder=config_to_dict(encoder), **head)


encoders = st.one_of(
    st.builds(lambda cls, bi, layers: cls(vocab_size=15, embedding_size=6, hidden_size=5,
                                         num_layers=layers, bidirectional=bi),
              st.sampled_from([LstmConfig, GruConfig]), st.booleans(), st.integers(1, 2)),
    st.builds(lambda cls_token, placement: TransformerEncoderConfig(
        vocab_size=15, d_model=8, num_heads=2, num_layers=1, d_ff=16, context_length=16,
        dropout=0.0, cls_token=cls_token, norm_placement=placement),
        st.booleans(), st.sampled_from(["post", "pre"])),
)


@settings(max_examples=15, deadline=None)
@given(encoder=encoders, pooling=st.sampled_from(["last", "mean", "max", "attention", "cls"]),
       kind=st.sampled_from(["classify", "tag", "masked_lm"]), seed=st.integers(0, 1000))
@pytest.mark.slow
def test_task_models_trace_equals_forward_and_padding_changes_nothing(encoder, pooling, kind,
                                                                      seed):
    if pooling == "cls" and not getattr(encoder, "cls_token", False):
        pooling = "mean"
    config = {"classify": classifier(encoder, num_labels=3, pooling=pooling),
              "tag": TaggerModelConfig(encoder=config_to_dict(encoder), num_tags=4),
              "masked_lm": MaskedLmModelConfig(encoder=config_to_dict(encoder))}[kind]
    torch.manual_seed(seed)
    model = build_model(config).eval()
    tokens = torch.randint(0, 15, (2, 7))
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    with torch.no_grad():
        batch = model(tokens, mask)
        alone = model(tokens[1:, :4])
    trace = model.trace(tokens[1, :4])
    if kind == "classify":
        np.testing.assert_allclose(batch[1].numpy(), alone[0].numpy(), atol=2e-5)
        np.testing.assert_allclose(trace.logits[0], alone[0].numpy(), atol=2e-5)
        np.testing.assert_allclose(trace.extras["label_probs"].sum(), 1.0, rtol=1e-5)
    else:
        np.testing.assert_allclose(batch[1, :4].numpy(), alone[0].numpy(), atol=2e-5)
        np.testing.assert_allclose(trace.logits, alone[0].numpy(), atol=2e-5)


def test_one_sigmoid_unit_is_binary_cross_entropy():
    z = torch.tensor([[-1.3], [0.2], [2.5]])
    labels = torch.tensor([0, 1, 1])
    ours = F.cross_entropy(two_class_logits(z), labels)
    bce = F.binary_cross_entropy_with_logits(z[:, 0], labels.float())
    torch.testing.assert_close(ours, bce)


@pytest.mark.slow
def test_seed_002_parameter_tables():
    """Embedding(5000, 64) + LSTM(64) + LSTM(64) + Dense(6): 386,438 in Keras, 386,950 in torch;
    Embedding(20000, 128) + 2 × Bidirectional(LSTM(64)) + Dense(1, sigmoid): 2,757,761 and
    2,758,785 (SEEDS 3.3, 3.6)."""
    first = summarize(classifier(LstmConfig(vocab_size=5000, embedding_size=64, hidden_size=64,
                                            num_layers=2, dropout=0.5), num_labels=6), 32, 16)
    assert (first.total_params, first.keras_params) == (386_950, 386_438)
    rows = {row.name: (row.params, row.keras_params, row.output_shape) for row in first.rows}
    assert rows["embedding"] == (320_000, 320_000, "(None, T, 64)")
    assert rows["lstm layer 1"][:2] == (33_280, 33_024)
    assert rows["head"] == (390, 390, "(None, 6)")
    second = summarize(classifier(LstmConfig(vocab_size=20_000, embedding_size=128,
                                             hidden_size=64, num_layers=2, bidirectional=True),
                                  num_labels=2, output="sigmoid"), 32, 16)
    assert (second.total_params, second.keras_params) == (2_758_785, 2_757_761)
    rows = {row.name: (row.params, row.keras_params) for row in second.rows}
    assert rows["lstm layer 2"] == (99_328, 98_816) and rows["head"] == (129, 129)


def test_the_inspectors_probe_an_encoder_both_directions_and_no_next_token():
    from workbench.core.corpus.tokenizers import CharTokenizer
    from workbench.core.inspection.probes import gradient_norms, probe

    tokenizer = CharTokenizer.train("the food was good")
    encoder = LstmConfig(vocab_size=tokenizer.vocab_size + 1, embedding_size=6,
                         hidden_size=5, bidirectional=True)
    model = build_model(classifier(encoder, num_labels=2)).eval()
    trace = probe(model, tokenizer, "good food")
    assert [layer.name for layer in trace.layers] == ["layer 0", "layer 0 reverse"]
    assert "topk_ids" not in trace.extras and "token_loss" not in trace.extras
    assert "saturation/layer 0 reverse/f" in trace.extras
    norms = gradient_norms(model, [int(i) for i in trace.tokens])
    forward, backward = norms["grad_norm/layer 0"], norms["grad_norm/layer 0 reverse"]
    assert forward.shape == backward.shape == (9,)
    # last pooling reads [h_n^f; h_1^b]: the forward direction's gradient is largest at the
    # end, the backward direction's at the start
    assert forward.argmax() == 8 and backward.argmax() == 0
