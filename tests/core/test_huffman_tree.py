"""The hierarchical-softmax tree: a Huffman code of the vocabulary's counts, frequent words near
the root, every word a leaf reached by a prefix-free path, about log₂|V| decisions per word."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.core.worked.huffman import codes, huffman_tree, mean_code_length


def test_a_textbook_huffman_code():
    # the classic a:45 b:13 c:12 d:16 e:9 f:5 (Cormen et al.): code lengths 1, 3, 3, 3, 4, 4
    counts = np.array([45, 13, 12, 16, 9, 5])
    code_of = codes(huffman_tree(counts))
    assert [len(code_of[i]) for i in range(6)] == [1, 3, 3, 3, 4, 4]
    assert mean_code_length(counts, code_of) == pytest.approx(224 / 100)


def test_every_word_is_a_leaf_with_a_prefix_free_path():
    counts = np.random.default_rng(0).zipf(1.3, size=300).clip(max=10_000)
    root = huffman_tree(counts)
    code_of = codes(root)
    assert root.size == 300 and sorted(code_of) == list(range(300))
    paths = sorted(code_of.values())
    assert all(not b.startswith(a) for a, b in zip(paths, paths[1:], strict=False))
    # the more frequent word never has the longer code: c_i > c_j ⇒ len_i ≤ len_j
    lengths = np.array([len(code_of[i]) for i in range(300)])
    more = counts[:, None] > counts[None, :]
    assert not np.any(more & (lengths[:, None] > lengths[None, :]))
    assert mean_code_length(counts, code_of) <= math.log2(300) + 1
