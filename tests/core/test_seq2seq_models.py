"""The encoder-decoder models: `trace` (the seeds' equations, step by step) equals `forward`
(fused kernels, SDPA) on the same weights over random configs; the decoding steps equal the
fused path; padding a batch changes no logit and no attention weight."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.config.seq2seq import RnnSeq2seqConfig, TransformerSeq2seqConfig
from workbench.core.models import build_model
from workbench.core.models.seq2seq_base import decoder_inputs

SOURCE_VOCAB, TARGET_VOCAB = 13, 9

rnn_configs = st.builds(
    RnnSeq2seqConfig, source_vocab_size=st.just(SOURCE_VOCAB),
    target_vocab_size=st.just(TARGET_VOCAB), cell=st.sampled_from(["rnn", "lstm", "gru"]),
    embedding_size=st.integers(2, 8), hidden_size=st.integers(2, 8),
    num_layers=st.integers(1, 2), bidirectional=st.booleans(),
    attention=st.sampled_from(["none", "dot", "scaled", "general", "additive"]),
    input_feeding=st.booleans(), bridge=st.sampled_from(["linear", "copy"]))
transformer_configs = st.builds(
    TransformerSeq2seqConfig, source_vocab_size=st.just(SOURCE_VOCAB),
    target_vocab_size=st.just(TARGET_VOCAB), d_model=st.sampled_from([8, 12, 16]),
    num_heads=st.sampled_from([1, 2, 4]), encoder_layers=st.integers(1, 2),
    decoder_layers=st.integers(1, 2), d_ff=st.sampled_from([8, 24]),
    max_length=st.just(16), dropout=st.just(0.0),
    positional=st.sampled_from(["sinusoidal", "learned"]),
    norm_placement=st.sampled_from(["post", "pre"]))
configs = st.one_of(rnn_configs, transformer_configs).filter(lambda c: not c.problems())


def _model(config, seed):
    torch.manual_seed(seed)
    return build_model(config).eval()


@settings(max_examples=30, deadline=None)
@given(config=configs, seed=st.integers(0, 1000), source_length=st.integers(1, 7),
       target_length=st.integers(1, 6))
@pytest.mark.slow
def test_trace_equals_forward_and_the_decoding_steps(config, seed, source_length,
                                                     target_length):
    model = _model(config, seed)
    source = torch.randint(4, SOURCE_VOCAB, (1, source_length))
    outputs = torch.randint(4, TARGET_VOCAB, (1, target_length))
    mask = torch.ones_like(source, dtype=torch.bool)
    trace = model.trace(source, outputs)
    with torch.no_grad():
        logits = model(source, mask, decoder_inputs(outputs))[0]
        stepped = model.stepwise(source, mask, decoder_inputs(outputs), 1.0)[0]
    torch.testing.assert_close(torch.from_numpy(trace.logits), logits, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(stepped, logits, rtol=1e-4, atol=1e-5)
    assert trace.logits.shape == (target_length, TARGET_VOCAB)
    if getattr(config, "attention", "dot") != "none":
        assert trace.alignment.shape == (target_length, source_length)
        torch.testing.assert_close(torch.from_numpy(trace.alignment).sum(-1),
                                   torch.ones(target_length))
    else:
        assert trace.alignment.shape == (target_length, 0)


@settings(max_examples=20, deadline=None)
@given(config=configs, seed=st.integers(0, 1000))
def test_padding_changes_no_logit_and_no_attention_weight(config, seed):
    """A pair alone, and the same pair padded in a batch beside a longer one."""
    model = _model(config, seed)
    long_source, short_source = torch.randint(4, SOURCE_VOCAB, (2, 7)).split(1)
    short_source = short_source[:, :3]
    long_out, short_out = torch.randint(4, TARGET_VOCAB, (1, 6)), torch.randint(4, 9, (1, 2))
    source = torch.zeros(2, 7, dtype=torch.long)
    source[0], source[1, :3] = long_source, short_source
    target_in = torch.zeros(2, 6, dtype=torch.long)
    target_in[0], target_in[1, :2] = decoder_inputs(long_out), decoder_inputs(short_out)
    with torch.no_grad():
        batched = model(source, source != 0, target_in)
        alone = model(short_source, torch.ones_like(short_source, dtype=torch.bool),
                      decoder_inputs(short_out))
        memory, state = model.begin(source, source != 0)
        _, _, weights = model.step(memory, state, target_in[:, 0])
    torch.testing.assert_close(batched[1, :2], alone[0], rtol=1e-4, atol=1e-5)
    if weights is not None:
        assert torch.equal(weights[1, 3:], torch.zeros(4))  # exactly 0 on the padding
        alone_weights = model.trace(short_source, short_out).alignment[0]
        torch.testing.assert_close(weights[1, :3], torch.from_numpy(alone_weights),
                                   rtol=1e-4, atol=1e-5)
