"""Decoding on known logits: greedy, top-k, top-p, temperature, the hover read-out, beams."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from workbench.core.generation import decoding
from workbench.core.generation.beam import BeamSearch, beam_search
from workbench.core.jobs import run_to_end


def draws(sampler, logits, n=2000):
    return [sampler(torch.tensor(logits, dtype=torch.float32)) for _ in range(n)]


def test_greedy_picks_argmax_and_ties_go_to_the_lowest_id():
    greedy = decoding.Sampler("greedy")
    assert greedy(torch.tensor([0.1, 5.0, 4.9, -1.0])) == 1
    assert greedy(torch.tensor([0.1, 5.0, 5.0])) == 1


def test_temperature_sharpens_and_flattens_the_draws():
    logits = [1.0, 3.0, 2.0]
    cold = draws(decoding.Sampler("sample", temperature=0.25, seed=1), logits)
    hot = draws(decoding.Sampler("sample", temperature=4.0, seed=1), logits)
    assert cold.count(1) > 1800  # p(1) at T = 1/4: 0.98
    assert 500 < hot.count(1) < 900  # at T = 4: 0.39
    with pytest.raises(ValueError, match="Temperature"):
        decoding.Sampler("sample", temperature=0.0)


def test_top_k_never_emits_outside_the_k():
    logits = np.random.default_rng(1).normal(size=50)
    allowed = set(np.argsort(-logits)[:5].tolist())
    drawn = set(draws(decoding.Sampler("top-k", top_k=5, seed=2), logits))
    assert drawn == allowed


@pytest.mark.slow
def test_top_p_keeps_the_smallest_set_reaching_the_mass():
    logits = np.log([0.05, 0.5, 0.3, 0.15])

    def kept(p):
        return set(draws(decoding.Sampler("top-p", top_p=p, seed=3), logits))

    assert kept(0.75) == {1, 2}  # 0.5 + 0.3 = 0.8 >= 0.75; 0.5 alone is not
    assert kept(0.8) == {1, 2}
    assert kept(0.81) == {1, 2, 3}
    assert kept(0.4) == {1}
    share = draws(decoding.Sampler("top-p", top_p=0.75, seed=4), logits, 4000).count(1) / 4000
    assert abs(share - 0.5 / 0.8) < 0.03  # renormalised over the kept set


def test_seeded_draws_are_reproducible():
    logits = np.arange(10.0) / 3
    a = draws(decoding.Sampler("sample", seed=7), logits, 50)
    assert draws(decoding.Sampler("sample", seed=7), logits, 50) == a
    assert draws(decoding.Sampler("sample", seed=8), logits, 50) != a


def test_the_read_out_gives_probability_entropy_rank_and_alternatives():
    logits = torch.log(torch.tensor([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]]))
    found = decoding.token_details(logits, [2, 0], alternatives=2)
    assert found.probability == pytest.approx([0.25, 0.1])
    assert found.entropy[0] == pytest.approx(1.5 * math.log(2))
    assert found.rank == [1, 2]  # strictly more likely: token 0; tokens 2 and 1
    assert found.ids == [[0, 1], [2, 1]] or found.ids == [[0, 2], [2, 1]]
    assert found.probs[1] == pytest.approx([0.7, 0.2])
    hot = decoding.token_details(logits, [2, 0], temperature=2.0)
    assert hot.entropy[1] > found.entropy[1]  # the distribution after temperature


class Tree:
    """A batched step over a prefix tree: each beam's state is its prefix, its logits the
    log of `table[prefix]` (0.5/0.5 where the table says nothing)."""

    def __init__(self, table, default=(0.5, 0.5)):
        self.table, self.default, self.prefixes = table, default, [()]

    def __call__(self, parents, tokens):
        self.prefixes = [self.prefixes[p] + (t,) for p, t in zip(parents.tolist(),
                                                                  tokens.tolist(), strict=True)]
        return torch.log(torch.tensor([self.table.get(p, self.default)
                                       for p in self.prefixes]))


def test_beam_search_finds_the_best_sequence_greedy_misses():
    # Greedy takes token 0 (p=0.6) and then faces 0.5/0.5 (best 0.30); the beam finds
    # 1 then 0 with p = 0.4 * 0.9 = 0.36.
    table = {(0,): [0.5, 0.5], (1,): [0.9, 0.1]}
    first = torch.log(torch.tensor([[0.6, 0.4]]))
    beams = beam_search(first, Tree(table), width=2, max_tokens=2, length_penalty=0.0)
    assert beams[0].tokens == [1, 0]
    assert np.isclose(np.exp(beams[0].log_prob), 0.36)
    one = beam_search(first, Tree(table), width=1, max_tokens=2, length_penalty=0.0)
    assert one[0].tokens[0] == 0  # width 1 is greedy


def test_the_best_beams_read_out_is_of_the_distributions_its_tokens_came_from():
    table = {(0,): [0.5, 0.5], (1,): [0.9, 0.1]}
    search = BeamSearch(torch.log(torch.tensor([[0.6, 0.4]])), Tree(table), width=2,
                        max_tokens=2, length_penalty=0.0)
    best = run_to_end(search.run())[0]
    found = search.details(best)
    assert found.probability == pytest.approx([0.4, 0.9]) and found.rank == [1, 0]
    assert found.ids == [[0, 1], [0, 1]] and found.probs[1] == pytest.approx([0.9, 0.1])
    assert found.entropy[1] == pytest.approx(-(0.9 * math.log(0.9) + 0.1 * math.log(0.1)))


def test_length_penalty_lets_longer_beams_win():
    # EOS (id 2) right away has p 0.5; continuing costs a little per token.
    first = torch.log(torch.tensor([[0.45, 0.05, 0.5]]))
    step = Tree({}, default=(0.8, 0.1, 0.1))
    short = beam_search(first, step, width=3, max_tokens=4, length_penalty=0.0, eos_id=2)
    search = BeamSearch(first, Tree({}, default=(0.8, 0.1, 0.1)), width=3, max_tokens=4,
                        length_penalty=2.0, eos_id=2)
    long = run_to_end(search.run())
    assert short[0].tokens == [2]
    assert long[0].tokens == [0, 0, 0, 0]
    # the read-out follows the beam past the steps where a finished beam was carried along
    found = search.details(long[0])
    assert found.probability == pytest.approx([0.45, 0.8, 0.8, 0.8])
    assert found.rank == [1, 0, 0, 0]
