"""The held-out text and scorer of benchmarks/bench_nanogpt.py (no nanoGPT needed): the blocks
come from the test split only, never straddle two pieces, and the scorer gives the right
nats per character for models whose answer is known."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import torch

from benchmarks import heldout
from workbench.core.corpus.dataset import split_ids


def test_blocks_are_the_test_split_and_never_cross_a_seam():
    ids = np.arange(200_000)  # each id is its own position
    pieces = heldout.test_pieces(len(ids), 0.1, 0.05, stripes=8)
    _, _, test = split_ids(ids, 0.1, 0.05, stripes=8)
    assert sum(end - start for start, end in pieces) == len(test)
    inputs, targets = heldout.heldout_blocks(ids, pieces, block=64)
    assert inputs.shape == targets.shape and inputs.shape[1] == 64
    assert np.array_equal(targets, inputs + 1)  # consecutive text, shifted by one
    assert set(np.unique(targets).tolist()) <= set(test.tolist())  # only held-out text
    for first, last in zip(inputs[:, 0], targets[:, -1], strict=True):
        assert any(start <= first and last < end for start, end in pieces)  # one piece each
    # consecutive blocks of a piece: every character after its first is predicted once
    assert len(np.unique(targets)) == targets.size
    assert targets.size > 0.9 * len(test)


def test_blocks_of_a_text_shorter_than_a_block_are_refused():
    with pytest.raises(ValueError, match="longer than 64"):
        heldout.heldout_blocks(np.arange(50), [(0, 50)], block=64)


def test_score_is_log_vocab_for_a_uniform_model_and_zero_for_a_sure_one():
    rng = np.random.default_rng(0)
    inputs = rng.integers(0, 10, size=(300, 16))
    targets = rng.integers(0, 10, size=(300, 16))

    def uniform(x, y):
        return torch.zeros(*x.shape, 10)

    def oracle(x, y):
        return torch.nn.functional.one_hot(y, 10).float() * 100.0

    assert heldout.score(uniform, inputs, targets, batch=64) == pytest.approx(math.log(10))
    assert heldout.score(oracle, inputs, targets, batch=64) == pytest.approx(0.0, abs=1e-6)


def test_nanogpt_data_files_hold_the_workbench_ids(tmp_path):
    train, val = np.array([3, 1, 4, 1, 5]), np.array([9, 2, 6])
    heldout.write_nanogpt_data(tmp_path / "d", train, val, vocab_size=70)
    assert np.array_equal(np.fromfile(tmp_path / "d" / "train.bin", dtype=np.uint16), train)
    assert np.array_equal(np.fromfile(tmp_path / "d" / "val.bin", dtype=np.uint16), val)
    with open(tmp_path / "d" / "meta.pkl", "rb") as f:
        assert pickle.load(f) == {"vocab_size": 70}


def test_benchmark_without_nanogpt_says_how_to_get_it(monkeypatch, capsys, tmp_path):
    from benchmarks import bench_nanogpt

    monkeypatch.delenv("NANOGPT_DIR", raising=False)
    monkeypatch.setattr("sys.argv", ["bench_nanogpt", "--nanogpt", str(tmp_path)])
    bench_nanogpt.main()
    out = capsys.readouterr().out
    assert "skipped" in out and "git clone https://github.com/karpathy/nanoGPT" in out


def test_carried_scoring_reads_each_test_piece_whole_and_never_across_a_seam():
    ids = np.arange(20_000) % 50
    pieces = heldout.test_pieces(len(ids), 0.1, 0.1, stripes=4)
    seen = []

    def uniform(x, y):
        seen.append(x.shape)
        return torch.zeros(*x.shape, 50)

    assert heldout.score_carried(uniform, ids, pieces) == pytest.approx(math.log(50))
    # one sequence per piece, each the whole piece but its last character as input
    assert seen == [(1, end - start - 1) for start, end in pieces]

    def oracle(x, y):
        return torch.nn.functional.one_hot(y, 50).float() * 100.0

    assert heldout.score_carried(oracle, ids, pieces) == pytest.approx(0.0, abs=1e-6)


def test_carried_scoring_lets_a_recurrent_model_use_what_came_before_the_block():
    # Every piece repeats its own first character: only context from the piece's start
    # predicts the rest. A model that echoes the first input it saw is sure when it is handed
    # the whole piece, and right only by chance from fresh 8-token blocks of other text.
    rng = np.random.default_rng(1)
    pieces = [(k * 100, k * 100 + 100) for k in range(20)]
    ids = np.concatenate([np.r_[rng.integers(0, 10), rng.integers(10, 20, 99)] for _ in pieces])
    for start, _ in pieces:
        ids[start + 1:start + 100:2] = ids[start]

    def echo_first(x, y):  # sure that every other target is the sequence's first token
        logits = torch.zeros(*x.shape, 20)
        logits[:, 0::2, :] = torch.nn.functional.one_hot(x[:, :1], 20).float() * 50.0
        return logits

    carried = heldout.score_carried(echo_first, ids, pieces)
    fresh = heldout.score(echo_first, *heldout.heldout_blocks(ids, pieces, block=8))
    assert carried < fresh - 1.0
