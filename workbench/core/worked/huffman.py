"""The Huffman tree of hierarchical softmax (Morin & Bengio 2005; Mikolov et al. 2013, sec. 2.1;
the course names it, seed 003): word2vec replaces the |V|-way softmax with a binary tree whose
leaves are the words, built from their counts as a Huffman code, so a frequent word sits near
the root. P(w | context) is the product of the sigmoid decisions on the path from the root to
w: a word costs as many dot products as its code has bits, about log₂|V| on average, instead of
|V|. gensim builds the same kind of tree from the same counts (`hs = 1`).

Torch- and gensim-free: the Embeddings panel draws the top of the tree from a vocabulary's
counts (the Qt room imports this module)."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Node:
    count: int
    word: int = -1  # a leaf's index in the vocabulary; -1 for an inner node
    children: list[Node] = field(default_factory=list)  # [0 branch, 1 branch] of an inner node
    size: int = 1  # leaves below


def huffman_tree(counts: np.ndarray) -> Node:
    """The Huffman tree of `counts` (ties broken by index, so the same counts give the same
    tree): the two least frequent subtrees merge, repeatedly."""
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) == 0:
        raise ValueError("An empty vocabulary has no tree.")
    heap: list[tuple[int, int, Node]] = [(int(c), i, Node(int(c), i))
                                          for i, c in enumerate(counts)]
    heapq.heapify(heap)
    order = len(counts)
    while len(heap) > 1:
        c0, _, zero = heapq.heappop(heap)
        c1, _, one = heapq.heappop(heap)
        heapq.heappush(heap, (c0 + c1, order, Node(c0 + c1, -1, [zero, one],
                                                   zero.size + one.size)))
        order += 1
    return heap[0][2]


def codes(root: Node) -> dict[int, str]:
    """Each word's path from the root as bits ("0" = the first branch)."""
    out: dict[int, str] = {}
    stack = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node.word >= 0:
            out[node.word] = path or "0"  # a one-word vocabulary still takes one decision
            continue
        stack += [(child, path + str(bit)) for bit, child in enumerate(node.children)]
    return out


def mean_code_length(counts: np.ndarray, code_of: dict[int, str]) -> float:
    """The average number of decisions per word of the text (weighted by the counts)."""
    counts = np.asarray(counts, dtype=np.float64)
    lengths = np.array([len(code_of[i]) for i in range(len(counts))], dtype=np.float64)
    return float((counts * lengths).sum() / counts.sum())
