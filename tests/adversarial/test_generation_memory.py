"""Red-team family 'generation memory' (issue 30, item 7 for generation): what one generation
call reads at once (a recurrent model's whole prompt, a transformer's window, each beam) is
budgeted before the first model call, and refused with the estimate and what fits."""

from __future__ import annotations

import pytest

from workbench.core.config.generation import GenerationConfig
from workbench.core.config.models import LstmConfig, TransformerConfig
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.events import JobFailed, JobFinished
from workbench.core.generation import memory_budget
from workbench.core.generation.generate import generation_job
from workbench.core.generation.memory_budget import check_generation_memory, forward_bytes
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.models import build_model
from workbench.core.training.activation_budget import dims_of

TOKENIZER = CharTokenizer.train("to be or not to be, that is the question")
MB = 2**20


@pytest.fixture
def little_memory(monkeypatch):
    """20 MB free, whatever the machine has."""
    monkeypatch.setattr(memory_budget, "available_memory_bytes", lambda: 20 * MB)


def _model(config):
    return build_model(config).eval()


def _events(model, prompt, **settings):
    config = GenerationConfig(max_tokens=settings.pop("max_tokens", 5), **settings)
    return list(drive(generation_job(model, TOKENIZER, prompt, config), JobControl()))


def test_a_pasted_book_as_the_prompt_of_a_recurrent_model_is_refused(little_memory):
    model = _model(LstmConfig(vocab_size=TOKENIZER.vocab_size, hidden_size=512,
                              embedding_size=64))
    events = _events(model, "to be or not " * 2_000)
    assert isinstance(events[-1], JobFailed)
    message = events[-1].message
    assert "after a prompt of 26,000 tokens" in message and "MB of memory is free" in message
    assert "a prompt of about" in message and "tokens fits" in message


def test_the_same_model_writes_after_a_short_prompt(little_memory):
    model = _model(LstmConfig(vocab_size=TOKENIZER.vocab_size, hidden_size=512,
                              embedding_size=64))
    assert isinstance(_events(model, "to be")[-1], JobFinished)


def test_a_transformer_is_budgeted_by_its_window_not_by_the_prompt(little_memory):
    model = _model(TransformerConfig(vocab_size=TOKENIZER.vocab_size, d_model=32, num_heads=2,
                                     num_layers=1, d_ff=64, context_length=64))
    assert isinstance(_events(model, "to be or not " * 2_000)[-1], JobFinished)


def test_a_wide_beam_over_a_long_window_is_refused_naming_the_beams(little_memory):
    config = TransformerConfig(vocab_size=TOKENIZER.vocab_size, d_model=256, num_heads=16,
                               num_layers=1, d_ff=512, context_length=8192)
    with pytest.raises(UserFacingError, match="with 64 beams.*lower the beam width"):
        check_generation_memory(config, 8192, 10, beams=64)


def test_the_estimate_grows_with_positions_beams_and_heads():
    dims = dims_of(TransformerConfig(vocab_size=100, d_model=64, num_heads=4, d_ff=128))
    assert forward_bytes(dims, 1, 256) < forward_bytes(dims, 1, 512)
    assert forward_bytes(dims, 4, 256) == 4 * forward_bytes(dims, 1, 256)
    # attention scores are quadratic: doubling the window more than doubles the estimate
    assert forward_bytes(dims, 1, 4096) > 2 * forward_bytes(dims, 1, 2048)


def test_a_model_without_known_sizes_is_not_refused():
    check_generation_memory(None, 10**9, 5000)  # nothing to estimate from: no refusal
