"""The RNN encoder-decoder drawn with or without attention (the course's seq2seq figures, seed
001 and 003; Bahdanau et al. 2014, fig. 1), from the model's own settings: the encoder reads
x_1 … x_S into h_1 … h_S; without attention only its final state, bridged to s_0, reaches the
decoder (the bottleneck); with attention every h_j is scored against the decoder's state, the
weights α_ij mix them into a context c_i at every output step. The score named is the one
set (config/attention_scores.py)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

from workbench.core.config.attention_scores import SCORES

ENC, DEC = "#dbe9f6", "#d9f0e3"
STEPS = 4  # encoder and decoder steps drawn


class Seq2seqFigure(QGraphicsView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setObjectName("seq2seq-figure")
        self.setMinimumHeight(180)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.attention = ""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(600, 220)

    def show_model(self, attention: str) -> None:
        """`attention`: the score's name ("none": the plain encoder-decoder); "" hides it."""
        scene = self.scene()
        scene.clear()
        self.attention = attention
        self.setVisible(attention in SCORES)
        if attention not in SCORES:
            return
        font, pen = QFont("DejaVu Sans", 8), QPen(QColor("#444444"), 1.2)
        encoder, decoder = [], []
        for j in range(STEPS):
            cell = QRectF(j * 60, 80, 40, 30)
            scene.addRect(cell, pen, QBrush(QColor(ENC)))
            self._text(f"h{j + 1}" if j < STEPS - 1 else "h_S", cell.left() + 8, cell.top() + 6,
                       font)
            self._text(f"x{j + 1}" if j < STEPS - 1 else "x_S", cell.left() + 10, 118, font)
            scene.addLine(cell.center().x(), 116, cell.center().x(), cell.bottom(), pen)
            if j:
                scene.addLine(cell.left() - 20, cell.center().y(), cell.left(),
                              cell.center().y(), pen)
            encoder.append(cell)
        for i in range(STEPS - 1):
            cell = QRectF(300 + i * 70, 80, 40, 30)
            scene.addRect(cell, pen, QBrush(QColor(DEC)))
            self._text(f"s{i + 1}", cell.left() + 10, cell.top() + 6, font)
            self._text(f"y{i + 1}", cell.left() + 10, 40, font)
            scene.addLine(cell.center().x(), cell.top(), cell.center().x(), 58, pen)
            if i:
                scene.addLine(cell.left() - 30, cell.center().y(), cell.left(),
                              cell.center().y(), pen)
            decoder.append(cell)
        last, first = encoder[-1], decoder[0]
        bridge = QPen(QColor("#D55E00"), 2.0)
        scene.addLine(last.right(), last.center().y(), first.left(), first.center().y(), bridge)
        self._text("s₀ = bridge(h_S)", last.right() + 4, last.center().y() + 4, font)
        if attention == "none":
            self._text("The plain encoder-decoder: the whole source reaches the decoder only "
                       "through s₀ (the bottleneck).", 0, 140, font)
        else:
            context = QRectF(400, 150, 60, 26)
            scene.addRect(context, pen, QBrush(QColor("#fde7d0")))
            self._text("c_i", context.left() + 18, context.top() + 4, font)
            weights = QPen(QColor("#0072B2"), 1.2, Qt.PenStyle.DashLine)
            for cell in encoder:  # every h_j, weighted by α_ij, into the context
                scene.addLine(cell.center().x(), cell.bottom(), context.left(),
                              context.center().y(), weights)
            for cell in decoder:  # at every output step
                scene.addLine(context.right() - 10, context.top(), cell.center().x(),
                              cell.bottom(), weights)
            self._text(f"α_ij = softmax_j(e_ij), {SCORES[attention].equation}", 0, 186, font)
        title = ("Encoder-decoder without attention" if attention == "none" else
                 "Encoder-decoder with attention: a context c_i = Σ_j α_ij h_j at every step")
        self._text(title, 0, 0, QFont("DejaVu Sans", 9, QFont.Weight.Bold))
        self.fitInView(scene.itemsBoundingRect().adjusted(-8, -8, 8, 8),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _text(self, text: str, x: float, y: float, font: QFont) -> None:
        self.scene().addText(text, font).setPos(x, y)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override: keep it all in view
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-8, -8, 8, 8),
                           Qt.AspectRatioMode.KeepAspectRatio)
