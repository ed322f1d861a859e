"""Inspector statistics against hand-computed values on hand-made traces."""

from __future__ import annotations

import numpy as np

from workbench.core.inspection import statistics
from workbench.core.trace import LayerTrace


def test_gate_saturation_counts_shut_and_open_steps_per_unit():
    f = np.array([[0.05, 0.5], [0.95, 0.5], [0.02, 0.99], [0.5, 0.91]])  # (T=4, H=2)
    layer = LayerTrace("lstm0", "lstm", {"f": f, "h": np.zeros((4, 2)), "g": f * 0 - 0.99})
    sat = statistics.gate_saturation(layer)
    assert set(sat) == {"f"}  # g is tanh, h is a state: no saturation scatter for them
    assert np.allclose(sat["f"], [[0.5, 0.25], [0.0, 0.5]])


def test_head_statistics_of_a_previous_token_head_and_a_first_token_head():
    t = 5
    prev = np.zeros((t, t))
    prev[0, 0] = 1
    for i in range(1, t):
        prev[i, i - 1] = 1
    first = np.zeros((t, t))
    first[:, 0] = 1
    uniform = np.tril(np.ones((t, t)))
    uniform /= uniform.sum(axis=1, keepdims=True)
    stats = statistics.head_statistics(np.stack([prev, first, uniform]))
    assert np.allclose(stats[0], [0.0, 4 / 5, 1.0, 0.25])  # row 1: token 0 is both
    assert np.allclose(stats[1], [0.0, np.mean(np.arange(t)), 0.25, 1.0])
    expected_entropy = np.mean([np.log(i + 1) for i in range(t)])
    assert np.isclose(stats[2, 0], expected_entropy)
    assert np.isclose(stats[2, 1], np.mean([i / 2 for i in range(t)]))


def test_pca_path_recovers_a_line_and_its_variance():
    rng = np.random.default_rng(0)
    direction = rng.normal(size=16)
    steps = np.arange(10.0)
    states = steps[:, None] * direction[None, :] + 3.0
    path, ratio = statistics.pca_path(states)
    assert np.isclose(ratio[0], 1.0) and np.isclose(ratio[1], 0.0, atol=1e-12)
    assert abs(np.corrcoef(path[:, 0], steps)[0, 1]) > 0.999999


def test_token_losses_are_minus_log_probability_of_the_next_token():
    logits = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]]))
    losses = statistics.token_losses(logits, np.array([0, 1, 2]))
    assert np.isnan(losses[0])
    assert np.allclose(losses[1:], [-np.log(0.2), -np.log(0.8)])


def test_top_k_next_is_sorted_by_probability():
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]]))
    ids, probs = statistics.top_k_next(logits, 2)
    assert ids.tolist() == [[1, 2], [0, 2]]
    assert np.allclose(probs, [[0.6, 0.3], [0.5, 0.3]])


def test_top_k_next_equals_a_full_stable_sort_ties_included():
    """A partial sort replaced the full one (a 50,257-token vocabulary made it 1.1 s of a
    probe): the same ids in the same order, ties broken by id, at any k."""
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(6, 40))
    logits[:, [4, 9, 17]] = 2.5  # three tokens tied at the top
    logits[2] = 0.0  # a row of ties only
    for k in (1, 2, 3, 5, 40, 50):
        ids, probs = statistics.top_k_next(logits, k)
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = z / z.sum(axis=1, keepdims=True)
        expected = np.argsort(-p, axis=1, kind="stable")[:, :k]
        assert ids.tolist() == expected.tolist()
        assert np.allclose(probs, np.take_along_axis(p, expected, axis=1))
