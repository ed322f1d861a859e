"""One transformer block drawn as the figures draw it (Vaswani et al. 2017, fig. 1; SLP3 fig.
9.18), from the model's own settings: the stream x enters; the attention reads it along three
parallel paths (Q, K and V, h heads of d_k = d/h); a residual arrow carries x around the sublayer
to ⊕; the feed-forward layer (d → d_ff → d) gets its own residual arrow; the LayerNorms stand
where the settings put them (post-LN: after each ⊕; pre-LN: before each sublayer, on its branch
only). A sequence-to-sequence decoder block adds cross-attention, its K and V from the encoder.
The Architecture panel shows it under the block diagram for transformer models."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import QWidget

from workbench.qt.widgets.figure_view import FigureView

W, H, GAP = 96.0, 54.0, 34.0
FILL = {"norm": "#eeeeee", "attention": "#fde7d0", "cross": "#f6dbe9", "ffn": "#d9f0e3",
        "add": "#ffffff", "io": "#dbe9f6"}


@dataclass(frozen=True)
class Part:
    kind: str  # io, norm, attention, cross, ffn, add
    title: str
    residual_from: int = -1  # an ⊕'s: the index of the part its skip arrow leaves from


ACTIVATION_NAMES = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU (tanh)", "silu": "SiLU"}


def block_parts(d_model: int, heads: int, d_ff: int, pre_norm: bool, causal: bool,
                cross: bool = False, activation: str = "relu") -> list[Part]:
    """The parts of one block, in the order the stream meets them."""
    d_k = d_model // max(heads, 1)
    attention = (f"{'Masked m' if causal else 'M'}ulti-head attention\n{heads} heads × "
                 f"d_k = {d_k}")
    sublayers = [("attention", attention)]
    if cross:
        sublayers.append(("cross", "Cross-attention\nQ from x, K and V from the encoder"))
    name = ACTIVATION_NAMES.get(activation, activation)
    sublayers.append(("ffn", f"Feed-forward\n{d_model} → {d_ff} → {d_model}, {name}"))
    parts = [Part("io", f"x\n(T × {d_model})")]
    for kind, title in sublayers:
        start = len(parts) - 1  # the skip leaves from the stream before the sublayer
        if pre_norm:
            parts.append(Part("norm", "LayerNorm"))
        parts.append(Part(kind, title))
        parts.append(Part("add", "⊕", residual_from=start))
        if not pre_norm:
            parts.append(Part("norm", "LayerNorm"))
    parts.append(Part("io", f"x′ to the next block\n(T × {d_model})"))
    return parts


class TransformerBlockFigure(FigureView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("transformer-block-figure", parent)
        self.setMinimumHeight(170)
        self.parts: list[Part] = []

    def show_block(self, parts: list[Part], heading: str) -> None:
        scene = self.scene()
        scene.clear()
        self.parts = parts
        if not parts:
            self.hide()
            return
        self.show()
        font = QFont("DejaVu Sans", 8)
        rects: list[QRectF] = []
        x = 0.0
        for part in parts:
            width = 30.0 if part.kind == "add" else (84.0 if part.kind == "norm" else W)
            rect = QRectF(x, (H - 30) / 2 if part.kind == "add" else 0.0, width,
                          30.0 if part.kind == "add" else H)
            if part.kind == "add":
                scene.addEllipse(rect, QPen(QColor("#444444"), 1.5), QBrush(QColor("white")))
            else:
                scene.addRect(rect, QPen(QColor("#555555")), QBrush(QColor(FILL[part.kind])))
            text = scene.addText(part.title, QFont("DejaVu Sans", 12 if part.kind == "add"
                                                   else 8))
            text.setTextWidth(-1 if part.kind == "add" else width - 4)
            box = text.boundingRect()
            text.setPos(rect.center().x() - box.width() / 2, rect.center().y() - box.height() / 2)
            rects.append(rect)
            x += width + GAP
        pen = QPen(QColor("#444444"), 1.3)
        for index in range(1, len(parts)):
            a, b = rects[index - 1], rects[index]
            if parts[index].kind == "attention":  # Q, K, V: three parallel paths
                for offset, label in ((-14, "Q"), (0, "K"), (14, "V")):
                    y = b.center().y() + offset
                    self.arrow(QPointF(a.right(), a.center().y()), QPointF(b.left(), y), pen)
                    tag = scene.addText(label, font)
                    tag.setPos(b.left() - 30, y - 12)
            elif parts[index].kind == "cross":  # Q from the stream, K and V from the encoder
                self.arrow(QPointF(a.right(), a.center().y()), QPointF(b.left(),
                                                                       b.center().y()), pen)
                memory = QRectF(b.left(), b.bottom() + 34, b.width(), 30)
                scene.addRect(memory, QPen(QColor("#555555")), QBrush(QColor(FILL["io"])))
                caption = scene.addText("encoder output", font)
                caption.setPos(memory.left() + 4, memory.top() + 4)
                for dx, tag_text in ((-16, "K"), (16, "V")):
                    x_at = b.center().x() + dx
                    self.arrow(QPointF(x_at, memory.top()), QPointF(x_at, b.bottom()), pen)
                    tag = scene.addText(tag_text, font)
                    tag.setPos(x_at + 2, b.bottom() + 6)
            else:
                self.arrow(QPointF(a.right(), a.center().y()), QPointF(b.left(),
                                                                       b.center().y()), pen)
        residual = QPen(QColor("#0072B2"), 1.6, Qt.PenStyle.DashLine)
        for index, part in enumerate(parts):
            if part.residual_from < 0:
                continue
            source, add = rects[part.residual_from], rects[index]
            top = -26.0
            start = QPointF(source.right() + GAP / 2, source.center().y())
            scene.addLine(start.x(), start.y(), start.x(), top, residual)
            scene.addLine(start.x(), top, add.center().x(), top, residual)
            self.arrow(QPointF(add.center().x(), top), QPointF(add.center().x(), add.top()),
                        residual)
        title = scene.addText(heading, QFont("DejaVu Sans", 9, QFont.Weight.Bold))
        title.setPos(0, -58)
        self.fit()
