"""The word2vec architecture the Train tab's settings describe, drawn as the course draws it
(seed 002's CBOW and skip-gram figures, after Mikolov et al. 2013, fig. 1): skip-gram reads one
centre word's one-hot vector, looks its row up in the input matrix W (|V| × d) and predicts each
of the 2m words around it through the output matrix W′ (d × |V|); CBOW looks up the 2m context
words, averages their rows and predicts the centre word. The sizes are the settings' (d, m) and
the vocabulary of the vectors last trained or the loaded corpus's word count, and the output
layer is the one chosen: k noise words per prediction, or a walk down the Huffman tree."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

from workbench.core.config.embeddings import EmbeddingConfig

BOX_W, BOX_H, GAP = 120.0, 46.0, 70.0
FILL = {"input": "#dbe9f6", "hidden": "#d9f0e3", "output": "#fde7d0"}


def diagram_boxes(config: EmbeddingConfig, vocab: int, exact: bool = True
                  ) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(left column, right column) of (kind, title, size) boxes: the inputs and the outputs
    around the one hidden layer. `exact`: `vocab` is the trained vectors' (else the corpus's
    distinct words, of which the minimum count keeps fewer)."""
    m = config.window
    words = (f"|V| = {vocab:,}" if exact else f"|V| ≤ {vocab:,}") if vocab else \
        "|V| (load a corpus)"
    output = (f"negative sampling: 1 + {config.negative} dot products"
              if config.objective == "negative" else "hierarchical softmax: ~log₂|V| decisions")
    context = [("input" if config.architecture == "cbow" else "output",
                f"w(t{offset:+d})", words) for offset in list(range(-m, 0)) + list(range(1, m + 1))]
    if len(context) > 6:  # the middle of a wide window, as the figures elide it
        context = context[:3] + [(context[0][0], "…", f"{2 * m} words in all")] + context[-3:]
    centre = [("input" if config.architecture == "skip-gram" else "output", "w(t)", words)]
    if config.architecture == "cbow":
        return context, centre + [("output", output, "")]
    return centre, context + [("output", output, "")]


class Word2vecDiagram(QGraphicsView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumHeight(220)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the drawing is fitted to the view
        self.setObjectName("word2vec-diagram")
        self.titles: list[str] = []  # the boxes drawn, for a test or a reader

    def show_config(self, config: EmbeddingConfig | None, vocab: int, exact: bool = True) -> None:
        scene = self.scene()
        scene.clear()
        self.titles = []
        if config is None:
            return
        left, right = diagram_boxes(config, vocab, exact)
        rows = max(len(left), len(right))
        height = rows * (BOX_H + 12)
        hidden = QRectF(BOX_W + GAP, height / 2 - BOX_H, BOX_W, 2 * BOX_H)
        mean = "average of the rows" if config.architecture == "cbow" else "its row of W"
        self._box(hidden, "hidden", f"h (d = {config.vector_size})", mean)
        for column, boxes in ((0, left), (2, right)):
            top = (height - len(boxes) * (BOX_H + 12)) / 2
            for i, (kind, title, size) in enumerate(boxes):
                rect = QRectF(column * (BOX_W + GAP), top + i * (BOX_H + 12), BOX_W, BOX_H)
                self._box(rect, kind, title, size)
                start, end = ((rect.right(), rect.center().y()),
                              (hidden.left(), hidden.center().y())) if column == 0 else \
                    ((hidden.right(), hidden.center().y()), (rect.left(), rect.center().y()))
                scene.addLine(*start, *end, QPen(QColor("#777777"), 1.2))
        weights = ("W (|V| × d), shared" if config.architecture == "cbow" else "W (|V| × d)",
                   "W′ (d × |V|)")
        for x, text in ((BOX_W + GAP / 2, weights[0]), (2 * BOX_W + 1.5 * GAP, weights[1])):
            label = scene.addText(text, QFont("DejaVu Sans", 8))
            label.setPos(x - label.boundingRect().width() / 2, -24)
        name = "CBOW: the context predicts the centre word" if config.architecture == "cbow" \
            else "Skip-gram: the centre word predicts each context word"
        heading = scene.addText(name, QFont("DejaVu Sans", 10, QFont.Weight.Bold))
        heading.setPos(0, -52)
        self.fitInView(scene.itemsBoundingRect().adjusted(-10, -10, 10, 10),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _box(self, rect: QRectF, kind: str, title: str, size: str) -> None:
        scene = self.scene()
        scene.addRect(rect, QPen(QColor("#555555")), QBrush(QColor(FILL[kind])))
        text = scene.addText(f"{title}\n{size}" if size else title, QFont("DejaVu Sans", 8))
        text.setTextWidth(rect.width() - 6)
        text.setPos(rect.left() + 3, rect.top() + 2)
        self.titles.append(title)

    def resizeEvent(self, event) -> None:  # keep the whole drawing in view
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-10, -10, 10, 10),
                           Qt.AspectRatioMode.KeepAspectRatio)
