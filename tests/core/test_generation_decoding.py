"""Decoding strategies on known logits: greedy, top-k, top-p, temperature, beam search."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.generation import decoding


def test_softmax_matches_definition_and_temperature_sharpens():
    z = np.array([1.0, 3.0, 2.0])
    p = decoding.softmax(z)
    assert np.allclose(p, np.exp(z) / np.exp(z).sum())
    cold, hot = decoding.softmax(z, 0.5), decoding.softmax(z, 2.0)
    assert cold.max() > p.max() > hot.max()
    with pytest.raises(ValueError, match="Temperature"):
        decoding.softmax(z, 0.0)


def test_greedy_picks_argmax():
    assert decoding.greedy(np.array([0.1, 5.0, 4.9, -1.0])) == 1


def test_top_k_never_emits_outside_the_k():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=50)
    allowed = set(np.argsort(-logits)[:5].tolist())
    probs = decoding.filter_top_k(decoding.softmax(logits), 5)
    assert (probs > 0).sum() == 5 and np.isclose(probs.sum(), 1.0)
    draws = {decoding.draw(probs, rng) for _ in range(2000)}
    assert draws <= allowed and len(draws) == 5


def test_top_p_keeps_the_smallest_set_reaching_the_mass():
    probs = np.array([0.05, 0.5, 0.3, 0.15])
    kept = decoding.filter_top_p(probs, 0.75)
    assert set(np.flatnonzero(kept)) == {1, 2}  # 0.5 + 0.3 = 0.8 >= 0.75; 0.5 alone is not
    assert np.allclose(kept[[1, 2]], [0.5 / 0.8, 0.3 / 0.8])
    assert set(np.flatnonzero(decoding.filter_top_p(probs, 0.8))) == {1, 2}
    assert set(np.flatnonzero(decoding.filter_top_p(probs, 0.81))) == {1, 2, 3}
    assert set(np.flatnonzero(decoding.filter_top_p(probs, 0.4))) == {1}


def test_seeded_draws_are_reproducible():
    probs = decoding.softmax(np.arange(10.0) / 3)
    a = [decoding.draw(probs, np.random.default_rng(7)) for _ in range(3)]
    r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
    assert [decoding.draw(probs, r1) for _ in range(20)] == [decoding.draw(probs, r2)
                                                             for _ in range(20)]
    assert len(set(a)) == 1


def test_entropy_rank_and_alternatives():
    p = np.array([0.5, 0.25, 0.25])
    assert np.isclose(decoding.entropy(p), 1.5 * np.log(2))
    assert decoding.rank_of(p, 0) == 0 and decoding.rank_of(p, 2) == 1
    assert decoding.top_alternatives(p, 2)[0] == (0, 0.5)


def _tree_step(table):
    """A step function over a prefix tree: the state is the prefix, logits from `table`."""
    def step(state, token):
        prefix = state + (token,)
        return np.log(np.asarray(table.get(prefix, [0.5, 0.5]))), prefix
    return step


def test_beam_search_finds_the_best_sequence_greedy_misses():
    # Greedy takes token 0 (p=0.6) and then faces 0.5/0.5 (best 0.30); the beam finds
    # 1 then 0 with p = 0.4 * 0.9 = 0.36.
    table = {(0,): [0.5, 0.5], (1,): [0.9, 0.1]}
    first = np.log(np.array([0.6, 0.4]))
    step = _tree_step(table)
    greedy_first = decoding.greedy(first)
    assert greedy_first == 0
    beams = decoding.beam_search(first, (), step, width=2, max_tokens=2, length_penalty=0.0)
    assert beams[0].tokens == [1, 0]
    assert np.isclose(np.exp(beams[0].log_prob), 0.36)
    one = decoding.beam_search(first, (), step, width=1, max_tokens=2, length_penalty=0.0)
    assert one[0].tokens[0] == 0  # width 1 is greedy


def test_length_penalty_lets_longer_beams_win():
    # EOS (id 2) right away has p 0.5; continuing costs a little per token.
    def step(state, token):
        return np.log(np.array([0.8, 0.1, 0.1])), state + (token,)
    first = np.log(np.array([0.45, 0.05, 0.5]))
    short = decoding.beam_search(first, (), step, width=3, max_tokens=4, length_penalty=0.0,
                                 eos_id=2)
    long = decoding.beam_search(first, (), step, width=3, max_tokens=4, length_penalty=2.0,
                                eos_id=2)
    assert short[0].tokens == [2]
    assert len(long[0].tokens) > 1
