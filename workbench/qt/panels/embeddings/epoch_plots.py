"""Per-epoch curves of word-vector training: loss, analogy accuracy, similarity Spearman."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.qt.widgets.boxes import readable
from workbench.qt.widgets.plot_export import PlotExportBar

LOSS_NOTE = (
    "Loss: the training loss summed over one epoch's (centre c, context o) pairs: with negative "
    "sampling −log σ(u_oᵀv_c) − Σₖ log σ(−u_{w_k}ᵀv_c) per pair, k noise words w_k (the "
    "standard SGNS loss), with hierarchical softmax −log of o's path probability in the tree. "
    "Each epoch starts from zero (not gensim's cumulative total) and "
    "sums every worker's jobs. fastText reports no loss. gensim reports nothing inside an "
    "epoch, so progress and cancel act between epochs."
)


class EpochPlots(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layout_widget = readable(pg.GraphicsLayoutWidget())
        self.layout_widget.setBackground("w")
        self.loss_plot = self.layout_widget.addPlot(title="Loss per epoch")
        self.eval_plot = self.layout_widget.addPlot(title="Evaluation per epoch")
        for plot in (self.loss_plot, self.eval_plot):
            plot.showGrid(x=True, y=True, alpha=0.3)
            plot.setLabel("bottom", "epoch")
        # bottom right: the curves rise from the bottom left, so a top legend hides them
        self.eval_plot.addLegend(offset=(-10, -10), labelTextColor="#333",
                                 brush=pg.mkBrush(255, 255, 255, 200))
        self.loss_curve = self.loss_plot.plot(pen=pg.mkPen("#0072B2", width=2), symbol="o",
                                              symbolSize=6, symbolBrush="#0072B2")
        self.curves = {
            "analogy_accuracy": self.eval_plot.plot(
                pen=pg.mkPen("#D55E00", width=2), symbol="o", symbolSize=6,
                symbolBrush="#D55E00", name="analogy accuracy"),
            "wordsim353": self.eval_plot.plot(
                pen=pg.mkPen("#009E73", width=2), symbol="s", symbolSize=6,
                symbolBrush="#009E73", name="WordSim353 ρ"),
            "simlex999": self.eval_plot.plot(
                pen=pg.mkPen("#CC79A7", width=2), symbol="t", symbolSize=6,
                symbolBrush="#CC79A7", name="SimLex-999 ρ"),
        }
        self.note = QLabel(LOSS_NOTE)
        self.note.setWordWrap(True)
        self.coverage = QLabel("")
        self.coverage.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.layout_widget, 1)
        layout.addWidget(self.coverage)
        layout.addWidget(self.note)
        self.export_bar = PlotExportBar(self.layout_widget, self.table, "embedding-epochs")
        layout.addWidget(self.export_bar)
        self.clear()

    def clear(self) -> None:
        self.rows: list[dict[str, float]] = []
        self.loss_curve.setData([], [])
        self.loss_plot.showAxis("left")
        for curve in self.curves.values():
            curve.setData([], [])
        self.coverage.setText("")

    def add_epoch(self, epoch: int, metrics: dict[str, float]) -> None:
        self.rows.append({"epoch": float(epoch), **metrics})
        epochs = [r["epoch"] for r in self.rows]
        if all("loss" in r for r in self.rows):
            self.loss_curve.setData(epochs, [r["loss"] for r in self.rows])
            self.loss_plot.setTitle("Loss per epoch (summed over the epoch's pairs)")
        else:
            self.loss_plot.setTitle("Loss: not reported by fastText")
            self.loss_plot.hideAxis("left")  # an empty 0-1 scale would read as a loss of zero
        if len(epochs) <= 20:  # whole epochs only: 1.5 is not an epoch
            ticks = [[(e, str(int(e))) for e in epochs]]
        else:
            ticks = None
        for plot in (self.loss_plot, self.eval_plot):
            plot.getAxis("bottom").setTicks(ticks)
        for key, curve in self.curves.items():
            if all(key in r for r in self.rows):
                curve.setData(epochs, [r[key] for r in self.rows])
        last = self.rows[-1]
        if "analogy_scored" in last:
            total = last["analogy_scored"] + last["analogy_oov"]
            self.coverage.setText(
                f"Analogies scored: {int(last['analogy_scored'])} of {int(total)} "
                f"({int(last['analogy_oov'])} have a word outside the vocabulary). "
                "Word pairs outside the vocabulary: WordSim353 "
                f"{last.get('wordsim353_oov', 0):.0%}, "
                f"SimLex-999 {last.get('simlex999_oov', 0):.0%}.")

    def table(self):
        keys = sorted({k for r in self.rows for k in r} - {"epoch"})
        header = ["epoch", *keys]
        return header, [[r.get(k, float("nan")) for r in self.rows] for k in header]
