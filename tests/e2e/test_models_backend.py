"""ModelsBackend: the registry on offer, summaries and matched sizes as jobs, refusals."""

from __future__ import annotations

import pytest

from workbench.app.models_backend import ModelsBackend
from workbench.core.config.models import MODEL_CONFIGS, GruConfig, LstmConfig, TransformerConfig
from workbench.core.config.summary import ModelSummary
from workbench.core.events import JobFailed, JobFinished
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.models.summary import parameter_count


def result_of(spec):
    events = list(drive(spec, JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result


def test_architectures_come_from_the_registry():
    listed = ModelsBackend().architectures()
    assert [arch for arch, *_ in listed] == list(MODEL_CONFIGS)
    assert all(MODEL_CONFIGS[arch] is cls and cls.title == title for arch, title, cls in listed)


def test_describe_job_returns_a_summary():
    summary = result_of(ModelsBackend().describe_job(GruConfig(vocab_size=40, hidden_size=32),
                                                     batch_size=2, seq_len=8))
    assert isinstance(summary, ModelSummary)
    assert summary.total_params == parameter_count(GruConfig(vocab_size=40, hidden_size=32))
    assert (summary.batch_size, summary.seq_len) == (2, 8)


@pytest.mark.parametrize("config,message", [
    (TransformerConfig(vocab_size=10, d_model=128, num_heads=3), "must divide"),
    (LstmConfig(vocab_size=10, num_layers=0), "Layers"),
    (LstmConfig(vocab_size=0), "tokenize a corpus first"),
])
def test_invalid_configs_are_refused_before_any_job(config, message):
    with pytest.raises(UserFacingError, match=message):
        ModelsBackend().describe_job(config)


def test_matched_size_as_a_job_and_a_call():
    backend = ModelsBackend()
    gru, lstm = GruConfig(vocab_size=300), LstmConfig(vocab_size=300, hidden_size=128)
    proposal = result_of(backend.matched_size_job(gru, lstm))
    assert proposal.fields == ("hidden_size",) and abs(proposal.relative_error) < 0.03
    assert proposal.target_params == parameter_count(lstm)
    assert backend.matched_size(gru, lstm) == proposal.width


def test_a_failing_summary_becomes_job_failed(monkeypatch):
    import workbench.core.models.summary as summary

    def broken(*args, **kwargs):
        raise RuntimeError("meta device unavailable")

    monkeypatch.setattr(summary, "summarize", broken)
    events = list(drive(ModelsBackend().describe_job(GruConfig(vocab_size=5)), JobControl()))
    assert isinstance(events[-1], JobFailed) and "did not expect" in events[-1].message
    assert "meta device unavailable" in events[-1].detail  # behind Details, not the message
