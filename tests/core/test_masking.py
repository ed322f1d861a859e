"""BERT's corruption rule: 15% of real tokens chosen, of those 80% [MASK], 10% random, 10%
kept (proportions over many draws), padding never chosen, and the masked-LM loss reads the
chosen positions only."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.data.masking import corrupt
from workbench.core.tasks.base import IGNORE_INDEX

MASK_ID, FIRST, VOCAB = 50, 4, 50


def draw(seed: int = 0, rows: int = 400, width: int = 250):
    rng = np.random.default_rng(seed)
    ids = rng.integers(FIRST, VOCAB, size=(rows, width))
    lengths = rng.integers(200, width + 1, size=rows)
    mask = np.arange(width)[None, :] < lengths[:, None]
    return ids, mask, corrupt(ids, mask, np.random.default_rng(seed + 1), MASK_ID, FIRST, VOCAB)


def test_proportions_over_many_draws():
    ids, mask, c = draw()
    real = int(mask.sum())  # ~90k tokens: the shares below hold to well under a point
    chosen = int(c.chosen.sum())
    assert abs(chosen / real - 0.15) < 0.005
    shares = [np.sum(c.how == k) / chosen for k in (1, 2, 3)]
    assert abs(shares[0] - 0.8) < 0.01 and abs(shares[1] - 0.1) < 0.01
    assert abs(shares[2] - 0.1) < 0.01
    assert not c.chosen[~mask].any()  # padding is never chosen
    assert np.all(c.inputs[c.how == 1] == MASK_ID)
    assert np.all(c.inputs[c.how == 3] == ids[c.how == 3])  # kept as it was
    random = c.inputs[c.how == 2]
    assert random.min() >= FIRST and random.max() < VOCAB  # no special token, no [MASK]
    assert np.all(c.inputs[~c.chosen] == ids[~c.chosen])  # the rest is untouched
    np.testing.assert_array_equal(c.targets[c.chosen], ids[c.chosen])
    assert np.all(c.targets[~c.chosen] == IGNORE_INDEX)


def test_every_sentence_gets_a_chosen_token():
    ids = np.full((200, 3), 7)
    mask = np.ones((200, 3), dtype=bool)
    c = corrupt(ids, mask, np.random.default_rng(3), MASK_ID, FIRST, VOCAB)
    assert c.chosen.any(axis=1).all()


def test_same_generator_state_same_corruption():
    ids, mask, first = draw(5, rows=20)
    _, _, second = draw(5, rows=20)
    np.testing.assert_array_equal(first.inputs, second.inputs)


def test_the_loss_reads_the_chosen_positions_only():
    ids, mask, c = draw(rows=4, width=210)
    logits = torch.randn(*ids.shape, VOCAB + 1, requires_grad=True)
    targets = torch.from_numpy(c.targets)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB + 1), targets.reshape(-1),
                           ignore_index=IGNORE_INDEX)
    loss.backward()
    unchosen = torch.from_numpy(~c.chosen)
    assert torch.all(logits.grad[unchosen] == 0)
    assert torch.all(logits.grad[~unchosen].abs().sum(-1) > 0)
