"""Greedy and beam decoding on a constructed model whose next-token distribution is a table
of the prefix, so the right answers are known by hand."""

from __future__ import annotations

import math

import numpy as np
import torch

from workbench.core.corpus.tokenizers import BOS, EOS
from workbench.core.generation.seq2seq_decoding import beam_steps, greedy_batch, greedy_steps
from workbench.core.models.seq2seq_base import Memory

A, B, C = 4, 5, 6
VOCAB = 7
# p(next | prefix): greedy takes A (0.5) and then can only end weakly; the beam finds B B <eos>
TABLE = {(): {A: 0.5, B: 0.4, C: 0.1},
         (A,): {A: 0.4, B: 0.3, C: 0.2, EOS: 0.1},
         (A, A): {EOS: 1.0}, (A, B): {EOS: 1.0}, (A, C): {EOS: 1.0},
         (B,): {B: 0.9, EOS: 0.1},
         (B, B): {EOS: 1.0},
         (C,): {EOS: 1.0}}


class TableModel:
    """A stand-in for a Seq2seqModel: the state is the prefix; attention is uniform."""

    def begin(self, source, source_mask):
        rows = source.shape[0]
        memory = Memory(torch.zeros(rows, source.shape[1], 1), source_mask)
        return memory, [() for _ in range(rows)]

    def step(self, memory, state, tokens):
        state = [prefix + (int(t),) if int(t) != BOS else prefix
                 for prefix, t in zip(state, tokens, strict=True)]
        logits = torch.full((len(state), VOCAB), -1e9)
        for row, prefix in enumerate(state):
            for token, p in TABLE.get(prefix, {EOS: 1.0}).items():
                logits[row, token] = math.log(p)
        width = memory.states.shape[1]
        return logits, state, torch.full((len(state), width), 1.0 / width)

    def reorder(self, state, index):
        return [state[i] for i in index.tolist()]


SOURCE = torch.tensor([[8, 9, 10]])


def test_greedy_takes_the_most_likely_token_each_step():
    steps = list(greedy_steps(TableModel(), SOURCE, max_length=5))
    final = steps[-1]
    assert final.tokens == [A, A, EOS] and final.finished and len(steps) == 3
    assert [len(s.tokens) for s in steps] == [1, 2, 3]  # streamed token by token
    np.testing.assert_allclose(final.probabilities, [0.5, 0.4, 1.0], rtol=1e-6)
    assert math.isclose(final.log_prob, math.log(0.5 * 0.4), rel_tol=1e-6)
    assert [token for token, _ in final.alternatives[0][:3]] == [A, B, C]
    np.testing.assert_allclose(final.attention[0], [1 / 3] * 3)


def test_beam_search_finds_the_likelier_sequence_greedy_misses():
    best = list(beam_steps(TableModel(), SOURCE, width=2, max_length=5, length_penalty=0.0))[-1]
    assert best.tokens == [B, B, EOS]
    assert math.isclose(best.log_prob, math.log(0.4 * 0.9), rel_tol=1e-6)
    one = list(beam_steps(TableModel(), SOURCE, width=1, max_length=5, length_penalty=0.0))[-1]
    assert one.tokens[0] == A  # width 1 is greedy


def test_batched_greedy_stops_each_row_at_its_own_eos():
    class Shortcut(TableModel):
        def step(self, memory, state, tokens):  # row 0 ends after C, row 1 goes A A <eos>
            logits, state, weights = super().step(memory, state, tokens)
            if state[0] == ():
                logits[0] = -1e9
                logits[0, C] = 0.0
            return logits, state, weights

    source = SOURCE.repeat(2, 1)
    outputs, lengths = greedy_batch(Shortcut(), source, torch.ones_like(source, dtype=bool), 6)
    assert outputs[0, :2].tolist() == [C, EOS] and lengths.tolist()[0] == 2
    assert outputs[1, :3].tolist() == [A, A, EOS] and lengths.tolist()[1] == 3
