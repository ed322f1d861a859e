"""The Hierarchical softmax tab of the Embeddings panel: the top levels of the Huffman tree
word2vec's hierarchical softmax walks (core/worked/huffman.py), built from the vocabulary's own
counts, with a word's path from the root drawn in orange and its code. A subtree below the
levels shown is one mark with the number of words in it. Built and drawn on the GUI thread: a
heap over a few thousand counts takes milliseconds."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

from workbench.core.worked.huffman import Node, codes, huffman_tree, mean_code_length
from workbench.qt.widgets.boxes import readable, row

PATH = "#D55E00"
EDGE = "#9a9a9a"


def visible_layout(root: Node, depth: int) -> tuple[list[tuple[Node, float, int]],
                                                    list[tuple[int, int]]]:
    """Nodes down to `depth` as (node, x, level), left to right, and the edges between their
    indices; a node at `depth` stands for its whole subtree."""
    nodes: list[tuple[Node, float, int]] = []
    edges: list[tuple[int, int]] = []
    next_x = [0.0]

    def place(node: Node, level: int) -> int:
        index = len(nodes)
        nodes.append((node, 0.0, level))
        if node.word >= 0 or level == depth:
            nodes[index] = (node, next_x[0], level)
            next_x[0] += 1.0
            return index
        kids = [place(child, level + 1) for child in node.children]
        nodes[index] = (node, float(np.mean([nodes[k][1] for k in kids])), level)
        edges.extend((index, k) for k in kids)
        return index

    place(root, 0)
    return nodes, edges


class HierarchicalTreeView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words: list[str] = []
        self.counts: np.ndarray | None = None
        self.root: Node | None = None
        self.code_of: dict[int, str] = {}
        self.word = QLineEdit()
        self.word.setObjectName("tree-word")
        self.word.setPlaceholderText("a word: its path from the root")
        self.word.editingFinished.connect(self._draw)
        self.levels = QSpinBox(minimum=2, maximum=8, value=5)
        self.levels.valueChanged.connect(self._draw)
        self.summary = QLabel("Train or import vectors with counts to see their tree.")
        self.summary.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        readable(self.plot, rows=2)
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        layout = QVBoxLayout(self)
        layout.addWidget(row(QLabel("word"), self.word, QLabel("levels shown"), self.levels,
                             QWidget()))
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)

    def set_vectors(self, vectors) -> None:
        counts = None if vectors is None else vectors.counts
        if counts is None or len(counts) == 0:
            self.words, self.counts, self.root, self.code_of = [], None, None, {}
            self.plot.clear()
            self.summary.setText("These vectors carry no word counts (an imported file): the "
                                 "tree is built from the counts, so train vectors here.")
            return
        self.words, self.counts = list(vectors.words), np.asarray(counts)
        self.root = huffman_tree(self.counts)
        self.code_of = codes(self.root)
        if not self.word.text().strip():
            self.word.setText(self.words[min(len(self.words) - 1, 50)])
        self._draw()

    def path_nodes(self, word_index: int) -> set[int]:
        """ids of the nodes on `word_index`'s path (the root included)."""
        assert self.root is not None
        node, seen = self.root, {id(self.root)}
        for bit in self.code_of.get(word_index, ""):
            node = node.children[int(bit)]
            seen.add(id(node))
        return seen

    def _draw(self) -> None:
        if self.root is None or self.counts is None:
            return
        chosen = self.word.text().strip()
        folded = {w.casefold(): i for i, w in reversed(list(enumerate(self.words)))}
        index = folded.get(chosen.casefold(), -1)  # 'Romeo' finds 'romeo'
        chosen = self.words[index] if index >= 0 else chosen
        on_path = self.path_nodes(index) if index >= 0 else set()
        nodes, edges = visible_layout(self.root, self.levels.value())
        self.plot.clear()
        for a, b in edges:
            (_, xa, la), (node_b, xb, lb) = nodes[a], nodes[b]
            colour = PATH if id(node_b) in on_path else EDGE
            self.plot.plot([xa, xb], [-la, -lb], pen=pg.mkPen(colour, width=2))
        for node, x, level in nodes:
            if node.word >= 0 or node.children == [] or level == self.levels.value():
                text = self.words[node.word] if node.word >= 0 else f"… {node.size:,}"
                label = pg.TextItem(text, color=PATH if id(node) in on_path else "#222222",
                                    anchor=(0, 0.5), angle=-90)
                label.setPos(x, -level - 0.15)
                self.plot.addItem(label)
        self.plot.plot([x for _, x, _ in nodes], [-lv for _, _, lv in nodes], pen=None,
                       symbol="o", symbolSize=6, symbolBrush="#0072B2", symbolPen=None)
        self.plot.setYRange(-self.levels.value() - 2.5, 0.5, padding=0)
        vocab = len(self.words)
        mean = mean_code_length(self.counts, self.code_of)
        said = (f" '{chosen}' has code {self.code_of[index]} ({len(self.code_of[index])} "
                "decisions, each a sigmoid of a dot product)." if index >= 0 else
                (f" '{chosen}' is not in the vocabulary." if chosen else ""))
        self.summary.setText(
            f"A softmax over the {vocab:,} words costs {vocab:,} dot products a prediction. "
            f"The tree makes it one binary decision a level: {mean:.1f} on average over the "
            f"words of the text (log₂ {vocab:,} = {math.log2(vocab):.1f}), fewer for frequent "
            f"words near the root.{said} Orange: its path.")
