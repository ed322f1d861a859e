"""An LSTM cell drawn as the course draws it (C. Olah's figure, seed 001 and 002's "conveyor
belt"; SLP3 fig. 9.13), from the cell's own table (core/recurrent_cells): the cell state runs
along the top, the forget gate multiplies it and the input gate adds the candidate; h_{t-1}
and x_t feed the four gates from below; the output gate reads tanh(c_t) into h_t. A peephole
cell adds the lines from the cell state into the gates that read it (c_{t-1} into f and i, the
new c_t into o). The Architecture panel shows it for the LSTM family."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

from workbench.core.recurrent_cells import CellKind

GATE_X = {"f": 60.0, "i": 130.0, "g": 190.0, "o": 280.0}  # where each gate sits
BELT_Y, GATE_Y, INPUT_Y = 20.0, 120.0, 190.0
PEEP = QColor("#D55E00")


class CellFigure(QGraphicsView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setObjectName("cell-figure")
        self.setMinimumHeight(190)
        for policy in (self.setHorizontalScrollBarPolicy, self.setVerticalScrollBarPolicy):
            policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.peepholes: tuple[str, ...] = ()
        self.peephole_lines = 0  # drawn (a test or a reader can count them)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(420, 220)

    def show_cell(self, cell: CellKind | None) -> None:
        scene = self.scene()
        scene.clear()
        lstm_like = cell is not None and cell.cell_state and set(cell.gates) == set(GATE_X)
        self.setVisible(lstm_like)
        if cell is None or not lstm_like:
            return
        self.peepholes = cell.peepholes
        font, pen = QFont("DejaVu Sans", 8), QPen(QColor("#444444"), 1.4)
        belt = QPen(QColor("#0072B2"), 2.2)
        scene.addLine(0, BELT_Y, 360, BELT_Y, belt)  # the cell state, left to right
        self._text("cₜ₋₁", -34, BELT_Y - 10, font)
        self._text("cₜ", 364, BELT_Y - 10, font)
        scene.addLine(0, INPUT_Y, 300, INPUT_Y, pen)  # [h_{t−1}, x_t] feeds every gate
        self._text("hₜ₋₁, xₜ", -54, INPUT_Y - 10, font)
        squash = {"f": "σ", "i": "σ", "g": "tanh", "o": "σ"}
        for gate, x in GATE_X.items():
            box = QRectF(x - 18, GATE_Y - 14, 36, 28)
            scene.addRect(box, pen, QBrush(QColor("#fde7d0")))
            self._text(f"{squash[gate]}\n{gate}", x - 14, GATE_Y - 15, font)
            scene.addLine(x, INPUT_Y, x, box.bottom(), pen)
        self._operator("×", GATE_X["f"], BELT_Y, font)  # forget: keep a share of c_{t−1}
        scene.addLine(GATE_X["f"], GATE_Y - 14, GATE_X["f"], BELT_Y + 9, pen)
        self._operator("×", 160, 70, font)  # i ⊙ g
        scene.addLine(GATE_X["i"], GATE_Y - 14, 152, 76, pen)
        scene.addLine(GATE_X["g"], GATE_Y - 14, 168, 76, pen)
        self._operator("+", 160, BELT_Y, font)  # write it onto the belt
        scene.addLine(160, 61, 160, BELT_Y + 9, pen)
        self._operator("tanh", 320, 60, font, wide=True)  # h_t = o ⊙ tanh(c_t)
        scene.addLine(320, BELT_Y, 320, 52, pen)
        self._operator("×", 320, 100, font)
        scene.addLine(320, 68, 320, 91, pen)
        scene.addLine(GATE_X["o"] + 18, GATE_Y, 311, 102, pen)
        scene.addLine(329, 100, 370, 100, pen)
        self._text("hₜ", 374, 90, font)
        peep = QPen(PEEP, 1.4, Qt.PenStyle.DashLine)
        self.peephole_lines = 0
        for gate in cell.peepholes:  # V c: f and i read c_{t−1}, o the new c_t
            x = GATE_X[gate]
            source = 200.0 if gate == "o" else 20.0
            scene.addLine(source, BELT_Y, x + 10, GATE_Y - 14, peep)
            self.peephole_lines += 1
        if cell.peepholes:
            self._text("dashed: peepholes V c", 180, INPUT_Y + 6, font, PEEP)
        self.fitInView(scene.itemsBoundingRect().adjusted(-8, -8, 8, 8),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _text(self, text: str, x: float, y: float, font: QFont,
              colour: QColor | None = None) -> None:
        item = self.scene().addText(text, font)
        if colour is not None:
            item.setDefaultTextColor(colour)
        item.setPos(x, y)

    def _operator(self, symbol: str, x: float, y: float, font: QFont, wide: bool = False) -> None:
        width = 30.0 if wide else 18.0
        self.scene().addEllipse(QRectF(x - width / 2, y - 9, width, 18),
                                QPen(QColor("#444444"), 1.2), QBrush(QColor("white")))
        item = self.scene().addText(symbol, font)
        box = item.boundingRect()
        item.setPos(x - box.width() / 2, y - box.height() / 2)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override: keep it all in view
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.scene().itemsBoundingRect().adjusted(-8, -8, 8, 8),
                           Qt.AspectRatioMode.KeepAspectRatio)
