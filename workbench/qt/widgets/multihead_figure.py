"""Multi-head attention drawn as the figures draw it (Vaswani et al. 2017, fig. 2; SLP3 fig.
9.19), from the model's own sizes: X (T × d) is projected h times, each head with its own
W_Q^i, W_K^i, W_V^i (d → d_k = d / h); each head computes softmax(Q K^T / √d_k) V on its own;
the h outputs of d_k values are concatenated back to d and mixed by W^O. The Architecture panel
shows it under the transformer block; up to four heads drawn, the others said."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

DRAWN = 4
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
FILL = {"io": "#dbe9f6", "proj": "#eeeeee", "head": "#fde7d0", "mix": "#d9f0e3"}


class MultiHeadFigure(QGraphicsView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setObjectName("multihead-figure")
        self.setMinimumHeight(170)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.heads_drawn = 0

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(600, 220)

    def show_heads(self, d_model: int, heads: int, causal: bool) -> None:
        scene = self.scene()
        scene.clear()
        self.heads_drawn = 0
        if heads < 1:
            self.hide()
            return
        self.show()
        d_k = d_model // heads
        font, pen = QFont("DejaVu Sans", 8), QPen(QColor("#444444"), 1.2)
        drawn = min(heads, DRAWN)
        row_height = 44.0
        height = drawn * row_height + (row_height if heads > drawn else 0)
        source = self._box(QRectF(0, height / 2 - 24, 80, 48), "io", f"X\nT × {d_model}", font)
        concat = self._box(QRectF(460, height / 2 - 24, 90, 48), "mix",
                           f"concat\nT × {heads}·{d_k} = {d_model}", font)
        out = self._box(QRectF(590, height / 2 - 24, 90, 48), "mix", f"W_O\n→ T × {d_model}",
                        font)
        scene.addLine(concat.right(), concat.center().y(), out.left(), out.center().y(), pen)
        for i in range(drawn):
            y = i * row_height
            n = str(i + 1).translate(SUPERSCRIPT)
            proj = self._box(QRectF(120, y, 140, 34), "proj",
                             f"W_Q{n}, W_K{n}, W_V{n}\n{d_model} → {d_k}", font)
            mask = " + M" if causal else ""
            head = self._box(QRectF(290, y, 150, 34), "head",
                             f"head {i + 1}: softmax((QKᵀ{mask})\n/ √{d_k}) V", font)
            scene.addLine(source.right(), source.center().y(), proj.left(), proj.center().y(),
                          pen)
            scene.addLine(proj.right(), proj.center().y(), head.left(), head.center().y(), pen)
            scene.addLine(head.right(), head.center().y(), concat.left(), concat.center().y(),
                          pen)
            self.heads_drawn += 1
        if heads > drawn:
            more = scene.addText(f"… and {heads - drawn} more heads, each the same on its own "
                                 "weights", font)
            more.setPos(130, drawn * row_height + 4)
        title = scene.addText(f"Multi-head attention: {heads} heads of d_k = {d_model} / "
                              f"{heads} = {d_k}, each on its own projections",
                              QFont("DejaVu Sans", 9, QFont.Weight.Bold))
        title.setPos(0, -34)
        self.fitInView(scene.itemsBoundingRect().adjusted(-8, -8, 8, 8),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _box(self, rect: QRectF, kind: str, text: str, font: QFont) -> QRectF:
        scene = self.scene()
        scene.addRect(rect, QPen(QColor("#555555")), QBrush(QColor(FILL[kind])))
        item = scene.addText(text, font)
        box = item.boundingRect()
        item.setPos(rect.center() - QPointF(box.width() / 2, box.height() / 2))
        return rect

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override: keep it all in view
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-8, -8, 8, 8),
                           Qt.AspectRatioMode.KeepAspectRatio)
