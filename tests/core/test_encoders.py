"""Encoders: the fused forward over a padded batch equals the step-by-step trace of each row
alone (hypothesis over configurations), padding changes nothing, and the two directions of a
bidirectional RNN read the sequence the way SLP3 9.15-9.17 says."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.config.models import (
    GruConfig,
    LstmConfig,
    RnnConfig,
    TransformerConfig,
    TransformerEncoderConfig,
)
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_encoder
from workbench.core.models.transformer_steps import attention

recurrent_configs = st.builds(
    lambda cls, e, h, layers, bidirectional, vocab: cls(
        vocab_size=vocab, embedding_size=e, hidden_size=h, num_layers=layers,
        bidirectional=bidirectional),
    st.sampled_from([RnnConfig, LstmConfig, GruConfig]),
    st.integers(2, 10), st.integers(2, 10), st.integers(1, 3), st.booleans(), st.integers(5, 30),
)
transformer_configs = st.builds(
    lambda heads, per_head, layers, vocab, placement, positions, cls: TransformerEncoderConfig(
        vocab_size=vocab, d_model=heads * per_head, num_heads=heads, num_layers=layers,
        d_ff=16, context_length=24, dropout=0.0, norm_placement=placement,
        positional=positions, cls_token=cls),
    st.integers(1, 3), st.sampled_from([8, 12]), st.integers(1, 3), st.integers(5, 30),
    st.sampled_from(["post", "pre"]), st.sampled_from(["sinusoidal", "learned"]), st.booleans(),
)


def padded_batch(vocab: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    width = max(lengths)
    tokens = torch.randint(0, vocab, (len(lengths), width), generator=generator)
    mask = torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]
    return tokens, mask


def finals_of(state):
    return state if isinstance(state, tuple) else (state,)


@settings(max_examples=30, deadline=None)
@given(config=st.one_of(recurrent_configs, transformer_configs), seed=st.integers(0, 10_000),
       lengths=st.lists(st.integers(1, 12), min_size=1, max_size=4))
@pytest.mark.slow
def test_forward_over_a_padded_batch_equals_the_trace_of_each_row(config, seed, lengths):
    torch.manual_seed(seed)
    encoder = build_encoder(config).eval()
    tokens, mask = padded_batch(config.vocab_size, lengths, seed)
    with torch.no_grad():
        out = encoder(tokens, mask)
    assert out.states.shape == (len(lengths), max(lengths), encoder.output_size)
    assert torch.all(out.states[~mask] == 0)  # padding reads as exactly zero
    for row, length in enumerate(lengths):
        trace = encoder.trace(tokens[row, :length])
        np.testing.assert_allclose(trace.output.states[0].numpy(),
                                   out.states[row, :length].numpy(), atol=2e-5)
        if out.final is not None:  # the decoder bridge: final states per layer and direction
            for ours, fused in zip(finals_of(trace.output.final), finals_of(out.final),
                                   strict=True):
                np.testing.assert_allclose(ours[:, 0].numpy(), fused[:, row].numpy(), atol=2e-5)
        if out.cls is not None:
            np.testing.assert_allclose(trace.output.cls[0].numpy(), out.cls[row].numpy(),
                                       atol=2e-5)
            assert trace.token_text[0] == "[CLS]"


@pytest.mark.parametrize("config", [
    LstmConfig(vocab_size=20, embedding_size=6, hidden_size=5, num_layers=2, bidirectional=True),
    TransformerEncoderConfig(vocab_size=20, d_model=8, num_heads=2, num_layers=2, d_ff=16,
                             context_length=16, dropout=0.0, cls_token=True),
])
def test_what_sits_in_the_padding_changes_nothing(config):
    torch.manual_seed(0)
    encoder = build_encoder(config).eval()
    tokens, mask = padded_batch(20, [9, 4, 6], seed=1)
    other = tokens.clone()
    other[~mask] = (other[~mask] + 7) % 20  # different ids where the mask says padding
    with torch.no_grad():
        first, second = encoder(tokens, mask), encoder(other, mask)
        alone = encoder(tokens[1:2, :4])  # the short row without any padding
    torch.testing.assert_close(first.states, second.states)
    torch.testing.assert_close(first.states[1, :4], alone.states[0], atol=2e-6, rtol=1e-5)


def test_bidirectional_halves_read_the_past_and_the_future():
    torch.manual_seed(0)
    config = GruConfig(vocab_size=30, embedding_size=6, hidden_size=5, bidirectional=True)
    encoder = build_encoder(config).eval()
    tokens = torch.randint(0, 30, (1, 8))
    changed = tokens.clone()
    changed[0, 5] = (changed[0, 5] + 1) % 30
    with torch.no_grad():
        a, b = encoder(tokens).states[0], encoder(changed).states[0]
    forward_half, backward_half = slice(0, 5), slice(5, 10)
    # h_t^f = RNN_forward(x_1..x_t): positions before the change keep their forward half
    torch.testing.assert_close(a[:5, forward_half], b[:5, forward_half])
    assert not torch.allclose(a[5:, forward_half], b[5:, forward_half])
    # h_t^b = RNN_backward(x_t..x_n): positions after the change keep their backward half
    torch.testing.assert_close(a[6:, backward_half], b[6:, backward_half])
    assert not torch.allclose(a[:6, backward_half], b[:6, backward_half])
    trace = encoder.trace(tokens[0])
    reverse = {layer.name: layer.values for layer in trace.layers}
    np.testing.assert_allclose(reverse["layer 0 reverse"]["h"], a[:, backward_half].numpy(),
                               atol=1e-6)
    assert {"r", "z", "n", "h"} <= set(reverse["layer 0 reverse"])


def test_encoder_attention_sees_both_sides_and_no_padding():
    torch.manual_seed(0)
    config = TransformerEncoderConfig(vocab_size=20, d_model=8, num_heads=2, num_layers=1,
                                      d_ff=16, context_length=16, dropout=0.0)
    encoder = build_encoder(config).eval()
    trace = encoder.trace(torch.randint(0, 20, (6,)))
    weights = trace.layers[0].values["attn"]  # (nh, T, T)
    assert np.all(weights[:, 0, 1:] > 0)  # the first token attends to later ones (no mask)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
    tokens, mask = padded_batch(20, [6, 3], seed=2)
    block = encoder.blocks[0]
    x, _ = encoder.embed_with_cls(tokens, mask)
    _, parts = attention(block, x, None, mask)
    padded_weights = parts["attn"]
    assert torch.all(padded_weights[1, :, :, 3:] == 0)  # padded keys: exactly zero weight
    torch.testing.assert_close(padded_weights.sum(-1), torch.ones(2, 2, 6))


def test_masks_an_encoder_cannot_honour_are_refused():
    encoder = build_encoder(LstmConfig(vocab_size=10, embedding_size=4, hidden_size=4))
    tokens = torch.zeros(2, 4, dtype=torch.long)
    with pytest.raises(ValueError, match="right padding"):
        encoder(tokens, torch.tensor([[1, 1, 1, 1], [0, 1, 1, 1]], dtype=torch.bool))
    with pytest.raises(ValueError, match="no real tokens"):
        encoder(tokens, torch.tensor([[1, 1, 1, 1], [0, 0, 0, 0]], dtype=torch.bool))


def test_a_decoder_only_transformer_is_not_an_encoder():
    with pytest.raises(UserFacingError, match="cannot be used as an encoder"):
        build_encoder(TransformerConfig(vocab_size=10))
