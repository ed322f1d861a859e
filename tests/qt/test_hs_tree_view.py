"""The Embeddings panel's Hierarchical softmax tab: the Huffman tree of the vectors' own counts,
its top levels drawn, a word's code and path named; vectors without counts say why."""

from __future__ import annotations

import numpy as np

from workbench.core.worked.huffman import codes, huffman_tree
from workbench.qt.gallery.fake_data import word_vectors
from workbench.qt.panels.embeddings.hs_tree import visible_layout
from workbench.qt.panels.embeddings.panel import EmbeddingsPanel


def test_the_tree_of_the_counts_and_a_words_path(make_panel):
    panel = make_panel(EmbeddingsPanel)
    vectors = word_vectors()  # counts 6, 5, 4, 3, 2, 1 for king … romeo
    panel.set_vectors(vectors)
    tree = panel.tree
    tree.word.setText("ROMEO")  # found whatever its case
    tree._draw()
    expected = codes(huffman_tree(np.arange(6, 0, -1)))
    assert tree.code_of == expected
    assert f"'romeo' has code {expected[5]}" in tree.summary.text()
    assert "softmax over the 6 words costs 6 dot products" in tree.summary.text()
    assert len(tree.path_nodes(5)) == len(expected[5]) + 1  # the root and one node a bit
    tree.word.setText("dragon")
    tree._draw()
    assert "'dragon' is not in the vocabulary" in tree.summary.text()


def test_levels_below_those_shown_fold_into_one_mark():
    root = huffman_tree(np.ones(64, dtype=int))  # a balanced tree of 6 levels
    nodes, edges = visible_layout(root, 3)
    leaves = [node for node, _, level in nodes if level == 3]
    assert len(leaves) == 8 and all(node.size == 8 for node in leaves)
    assert len(edges) == len(nodes) - 1  # a tree


def test_vectors_without_counts_say_why(make_panel):
    panel = make_panel(EmbeddingsPanel)
    vectors = word_vectors()
    vectors.counts = None
    panel.set_vectors(vectors)
    assert "no word counts" in panel.tree.summary.text() and panel.tree.root is None
