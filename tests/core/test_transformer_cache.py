"""Generation through the transformer's key-value cache gives the logits a full re-read of the
window gives: for one sequence, past the context length (where the window slides), for beams
that swap parents, and for a post-LN model with sinusoidal positions."""

from __future__ import annotations

import pytest
import torch

from workbench.core.config.models import TransformerConfig
from workbench.core.generation.stepper import ModelStepper
from workbench.core.models import build_model


def model_of(**changes):
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=30, d_model=16, num_heads=2, num_layers=2, d_ff=32,
                               context_length=12, dropout=0.0, **changes)
    return build_model(config).eval()


def steppers(model):
    cached, plain = ModelStepper(model), ModelStepper(model)
    plain.cached = False  # the re-read the cache replaces
    assert cached.cached
    return cached, plain


@pytest.mark.parametrize("changes", [
    {"norm_placement": "pre", "positional": "learned", "activation": "gelu_tanh"},
    {"norm_placement": "post", "positional": "sinusoidal"},
])
def test_cached_steps_equal_rereading_the_window_even_past_the_context(changes):
    model = model_of(**changes)
    cached, plain = steppers(model)
    torch.testing.assert_close(cached.start([1, 5, 7]), plain.start([1, 5, 7]))
    for token in [3, 9, 2, 4, 8, 1, 6, 6, 7, 2, 5, 3, 9, 4]:  # 17 tokens: the window slides
        torch.testing.assert_close(cached.step(token), plain.step(token), atol=1e-5, rtol=0)


def test_beams_follow_their_parents_through_the_cache():
    model = model_of(norm_placement="pre", positional="learned")
    cached, plain = steppers(model)
    torch.testing.assert_close(cached.start_beams([2, 4]), plain.start_beams([2, 4]))
    parents, tokens = torch.tensor([0, 0, 0]), torch.tensor([1, 5, 9])
    for _ in range(12):
        a, b = cached.step_beams(parents, tokens), plain.step_beams(parents, tokens)
        torch.testing.assert_close(a, b, atol=1e-5, rtol=0)
        parents = torch.tensor([2, 0, 1])  # each beam now extends another one
        tokens = a.argmax(-1)
