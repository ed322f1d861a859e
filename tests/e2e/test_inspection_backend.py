"""InspectionBackend on real tiny models: cache, probes, gradients, clamps, generation,
checkpoints. Needs the model zoo (workbench.core.models)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from workbench.app.inspection_backend import InspectionBackend
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.models import GruConfig, LstmConfig, TransformerConfig
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.events import JobFinished, TokensGenerated
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.models import build_model
from workbench.core.snapshot.rebuild import snapshot_of

TEXT = "To be, or not to be, that is the question: whether 'tis nobler in the mind"
TOKENIZER = CharTokenizer.train(TEXT)


def snapshot(config, step=10, writes_on=False):
    """An untrained model's snapshot; `writes_on`: the special tokens' logits pushed far down,
    as a trained model has them, so it never stops at an end token after a few draws."""
    torch.manual_seed(0)
    model = build_model(config.__class__(**{**config.__dict__,
                                            "vocab_size": TOKENIZER.vocab_size}))
    if writes_on:
        with torch.no_grad():
            model.head.bias[:4] = -1e4  # <pad> <unk> <bos> <eos>
    return snapshot_of(model, TOKENIZER.to_dict(), step, {}, "test")


def result(spec):
    events = list(drive(spec, JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result, events


def test_models_are_rebuilt_once_per_snapshot():
    backend = InspectionBackend()
    snap = snapshot(LstmConfig(hidden_size=16, embedding_size=8))
    result(backend.probe_job(snap, "to be", gradients=False))
    result(backend.probe_job(snap, "or not", gradients=True))
    assert backend.rebuilds == 1
    result(backend.probe_job(snapshot(LstmConfig(hidden_size=16, embedding_size=8), 20), "to"))
    assert backend.rebuilds == 2


def test_one_trace_serves_every_inspector_probing_the_same_text():
    backend = InspectionBackend()
    snap = snapshot(LstmConfig(hidden_size=16, embedding_size=8))
    with_gradients, _ = result(backend.probe_job(snap, "to be", gradients=True))
    again, _ = result(backend.probe_job(snap, "to be", gradients=False))
    assert again is with_gradients
    other, _ = result(backend.probe_job(snap, "or not", gradients=False))
    assert other is not with_gradients
    other_with, _ = result(backend.probe_job(snap, "or not", gradients=True))
    assert other_with.layers is other.layers  # the trace reused, gradients added
    assert any(k.startswith("grad_norm/") for k in other_with.extras)


def test_lstm_probe_has_gates_statistics_and_gradients():
    backend = InspectionBackend()
    snap = snapshot(LstmConfig(hidden_size=16, embedding_size=8, num_layers=2))
    trace, _ = result(backend.probe_job(snap, "to be or not", gradients=True))
    assert trace.token_text == list("to be or not")
    layer = trace.layers[0]
    assert layer.values["f"].shape == (12, 16) and layer.values["f"].min() >= 0
    assert trace.extras["topk_ids"].shape == (12, 5)
    grads = [k for k in trace.extras if k.startswith("grad_norm/")]
    assert len(grads) == 2 and trace.extras[grads[0]].shape == (11,)
    assert int(trace.extras["step"]) == 10


def test_gradient_through_time_fades_going_back_in_an_untrained_gru():
    backend = InspectionBackend()
    snap = snapshot(GruConfig(hidden_size=16, embedding_size=8))
    trace, _ = result(backend.probe_job(snap, "to be or not", gradients=True))
    norms = trace.extras[next(k for k in trace.extras if k.startswith("grad_norm/"))]
    assert norms[-1] > norms[0] > 0  # the last prediction's loss reaches early steps weakly


def test_transformer_probe_has_attention_and_positions():
    backend = InspectionBackend()
    snap = snapshot(TransformerConfig(d_model=16, num_heads=2, num_layers=2, d_ff=32,
                                      context_length=32, dropout=0.0))
    trace, _ = result(backend.probe_job(snap, "to be or not", gradients=False))
    attn = [layer for layer in trace.layers if "attn" in layer.values]
    assert len(attn) == 2 and attn[0].values["attn"].shape == (2, 12, 12)
    assert np.allclose(np.triu(attn[0].values["attn"][0], 1), 0)
    assert trace.extras["head_stats/" + attn[0].name].shape == (2, 4)
    assert trace.extras["positional"].shape[0] == 12


def test_clamping_a_unit_fixes_it_and_changes_what_follows():
    backend = InspectionBackend()
    snap = snapshot(GruConfig(hidden_size=16, embedding_size=8))
    model = backend.model_for(snap)
    tokens = torch.tensor(TOKENIZER.encode("to be or not"))
    free = model.trace(tokens)
    clamped = model.trace(tokens, clamp={"layer": 0, "unit": 3, "value": 0.0})
    assert np.allclose(clamped.layers[0].values["h"][:, 3], 0.0)
    assert not np.allclose(free.layers[0].values["h"][:, 3], 0.0)
    assert not np.allclose(free.logits[1:], clamped.logits[1:])


def test_generation_is_seeded_and_streams_from_a_snapshot():
    backend = InspectionBackend()
    snap = snapshot(LstmConfig(hidden_size=16, embedding_size=8), writes_on=True)
    config = GenerationConfig(strategy="sample", max_tokens=30, seed=5)
    first, events = result(backend.generation_job(snap, "to be", config))
    again, _ = result(backend.generation_job(snap, "to be", config))
    assert first.text == again.text and len(first.token_ids) == 30
    assert sum(len(e.tokens) for e in events if isinstance(e, TokensGenerated)) == 30
    clamped, _ = result(backend.generation_job(snap, "to be", config,
                                               clamp={"layer": 0, "unit": 0, "value": 5.0}))
    assert len(clamped.token_ids) == 30


def test_bad_requests_get_clear_messages(tmp_path):
    backend = InspectionBackend()
    snap = snapshot(LstmConfig(hidden_size=16, embedding_size=8))
    with pytest.raises(UserFacingError, match="empty"):
        backend.probe_job(snap, "  ")
    with pytest.raises(UserFacingError, match="does not exist"):
        backend.load_checkpoint_job(tmp_path / "nothing")
    with pytest.raises(UserFacingError, match="Temperature"):
        backend.generation_job(snap, "to", GenerationConfig(temperature=0.0))


def test_checkpoints_open_as_snapshots_from_a_file_or_a_run_folder(tmp_path):
    from workbench.core.config.models import config_to_dict
    from workbench.core.training.checkpoints import save_checkpoint

    config = LstmConfig(hidden_size=16, embedding_size=8, vocab_size=TOKENIZER.vocab_size)
    torch.manual_seed(0)
    model = build_model(config)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    meta = {"step": 42, "model_config": config_to_dict(config), "run_name": "saved",
            "tokenizer": TOKENIZER.to_dict(), "metrics": {"val_loss": 2.5}}
    json_path = save_checkpoint(tmp_path / "run" / "checkpoints", "latest", model, optimizer,
                                meta)
    backend = InspectionBackend()
    for path in (json_path, tmp_path / "run"):
        snap, _ = result(backend.load_checkpoint_job(path))
        assert snap.step == 42 and snap.run_name == "saved" and snap.arch == "lstm"
        trace, _ = result(backend.probe_job(snap, "to be", gradients=False))
        with torch.no_grad():
            expected = model.trace(torch.tensor(TOKENIZER.encode("to be"))).logits
        assert np.allclose(trace.logits, expected, atol=1e-5)
    folder = tmp_path / "run" / "checkpoints"
    (folder / json.loads((folder / "latest.json").read_text())["weights"]).write_bytes(b"cut")
    failed = list(drive(backend.load_checkpoint_job(json_path), JobControl()))[-1]
    assert type(failed).__name__ == "JobFailed" and "Use another checkpoint" in failed.message


def test_clamping_a_head_changes_the_transformer_and_generation_runs_with_it():
    backend = InspectionBackend()
    snap = snapshot(TransformerConfig(d_model=16, num_heads=2, num_layers=1, d_ff=32,
                                      context_length=32, dropout=0.0, tie_weights=True))
    model = backend.model_for(snap)
    tokens = torch.tensor(TOKENIZER.encode("to be or not"))
    free = model.trace(tokens)
    clamped = model.trace(tokens, clamp={"layer": 0, "head": 1, "value": 0.0})
    assert not np.allclose(free.logits, clamped.logits)
    config = GenerationConfig(strategy="greedy", max_tokens=12)
    plain, _ = result(backend.generation_job(snap, "to be", config))
    with_clamp, _ = result(backend.generation_job(snap, "to be", config,
                                                  clamp={"layer": 0, "head": 1, "value": 0.0}))
    assert len(plain.token_ids) == len(with_clamp.token_ids) == 12
