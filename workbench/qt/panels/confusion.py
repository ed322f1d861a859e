"""Classes panel: the live confusion matrix and per-class precision, recall and F1.

Each validation of a classification or tagging run carries `results["classes"]` (the label
names and the confusion matrix C, rows = true class, columns = predicted). The panel redraws
from the latest one of the running job or of a followed run (a new run starts it afresh); a
slider goes back over the validations seen, so the matrix can be watched sharpening onto its
diagonal. Rows may be shown as counts or as shares of the true class (each row then reads as
that class's recall spread over the predictions).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Slot
from PySide6.QtWidgets import QCheckBox, QLabel, QSlider, QSplitter, QVBoxLayout

from workbench.core.events import EvalLogged, RunGrew
from workbench.core.metrics import ClassScores
from workbench.qt.panel import Panel
from workbench.qt.widgets.boxes import column, row, series_colour
from workbench.qt.widgets.heatmap import Heatmap
from workbench.qt.widgets.plot_export import PlotExportBar

MAX_CELL_TEXT = 20  # classes up to which each cell shows its number
EQUATIONS = ("precision<sub>k</sub> = C<sub>kk</sub> / Σ<sub>i</sub> C<sub>ik</sub> · "
             "recall<sub>k</sub> = C<sub>kk</sub> / Σ<sub>j</sub> C<sub>kj</sub> · "
             "F1<sub>k</sub> = 2PR / (P + R) · macro-F1 = mean<sub>k</sub> F1<sub>k</sub>")


class ConfusionPanel(Panel):
    name: ClassVar[str] = "confusion"
    title: ClassVar[str] = "Classes"
    perspective: ClassVar[str] = "Inspect"
    area: ClassVar[str] = "right"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.history: list[tuple[int, ClassScores]] = []
        self.status = QLabel("Train a classifier or a tagger: each validation shows here.",
                             wordWrap=True)
        self.normalise = QCheckBox("Rows as shares")
        self.normalise.setToolTip("Divide each row by its total: the share of each true class "
                                  "that went to each prediction (the diagonal is the recall).")
        self.normalise.toggled.connect(self._draw)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setEnabled(False)
        self.slider.valueChanged.connect(self._draw)
        self.slider.setToolTip("The validations seen so far: watch the matrix sharpen.")
        self.heatmap = Heatmap("", "predicted class", "true class", name="confusion",
                               on_error=controller.report_error)
        self.cell_text: list[pg.TextItem] = []
        self.bars = pg.PlotWidget(background="w")
        self.bars.setMenuEnabled(False)
        self.bars.setYRange(0, 1.05)
        self.bars.setLabel("left", "share")
        self.bars.addLegend(offset=(-10, 10))
        self.bars_export = PlotExportBar(self.bars, self._bar_data, name="per-class",
                                         on_error=controller.report_error)
        equations = QLabel(EQUATIONS, wordWrap=True)
        equations.setTextFormat(Qt.TextFormat.RichText)
        equations.setStyleSheet("color: #555555")
        self.split = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.heatmap)
        split.addWidget(column(self.bars, self.bars_export))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget in (self.status, row(self.normalise, QLabel("Validation:"), self.slider)):
            layout.addWidget(widget)
        layout.addWidget(split, 1)
        layout.addWidget(equations)
        controller.job_event.connect(self._on_job_event)
        controller.follow_event.connect(self._on_follow_event)
        controller.run_changed.connect(self._on_run_changed)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Matrix and bars side by side in a wide, low dock; one above the other otherwise."""
        super().resizeEvent(event)
        wide = event.size().width() > 1.2 * event.size().height()
        self.split.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)

    # --- sources ------------------------------------------------------------------------------

    @Slot(object)
    def _on_job_event(self, event: Any) -> None:
        if isinstance(event, EvalLogged):
            self.add(event)

    @Slot(str, object)
    def _on_follow_event(self, key: str, event: Any) -> None:
        if isinstance(event, RunGrew):
            for item in event.events:
                if isinstance(item, EvalLogged):
                    self.add(item)

    @Slot(object)
    def _on_run_changed(self, path: Any) -> None:
        """A new run started: its validations replace the last run's, and the last run's
        matrix goes (it stayed on screen under the new run's name until its first validation:
        a lesson's tagger showed the sentiment classifier's matrix)."""
        self.history.clear()
        self.slider.setRange(0, 0)
        self.slider.setEnabled(False)
        self.heatmap.clear("Waiting for the new run's first validation")
        self._cell_numbers(np.zeros((0, 0)))
        self.bars.clear()
        self.status.setText("A new run started: its first validation shows here (a "
                            "classifier's or a tagger's; a language model has no classes).")

    def add(self, event: EvalLogged) -> None:
        classes = (event.results or {}).get("classes")
        if not classes:
            return
        self.history.append((event.step, ClassScores.from_dict(classes)))
        self._after_add()

    def _after_add(self) -> None:
        if not self.history:
            return
        at_end = self.slider.value() >= self.slider.maximum()
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, len(self.history) - 1)
            if at_end:
                self.slider.setValue(len(self.history) - 1)
        self.slider.setEnabled(len(self.history) > 1)
        self._draw()

    # --- drawing ------------------------------------------------------------------------------

    def shown(self) -> tuple[int, ClassScores] | None:
        if not self.history:
            return None
        return self.history[min(self.slider.value(), len(self.history) - 1)]

    def _draw(self, *_: Any) -> None:
        shown = self.shown()
        if shown is None:
            return
        step, scores = shown
        matrix = scores.confusion.astype(np.float64)
        if self.normalise.isChecked():
            totals = matrix.sum(axis=1, keepdims=True)
            matrix = np.divide(matrix, totals, out=np.zeros_like(matrix), where=totals > 0)
        names = list(scores.names)
        self.heatmap.set_data(matrix, names, names, title=f"Confusion matrix at step {step}")
        self._cell_numbers(matrix)
        self.status.setText(f"Step {step}: accuracy {scores.accuracy:.1%}, macro-F1 "
                            f"{scores.macro_f1:.1%} over {scores.total:,} validation items "
                            f"({len(self.history)} validation{'s' * (len(self.history) != 1)} "
                            "seen).")
        self._draw_bars(scores)

    def _cell_numbers(self, matrix: np.ndarray) -> None:
        for item in self.cell_text:
            self.heatmap.plot.removeItem(item)
        self.cell_text = []
        if matrix.shape[0] > MAX_CELL_TEXT:
            return
        lo, hi = (float(matrix.min()), float(matrix.max())) if matrix.size else (0.0, 1.0)
        shares = self.normalise.isChecked()
        for (r, c), value in np.ndenumerate(matrix):
            text = f"{value:.2f}" if shares else f"{int(value)}"
            # viridis is dark in its lower half: white text there, black on the light end
            dark = (value - lo) < 0.55 * (hi - lo) if hi > lo else True
            item = pg.TextItem(text, color="w" if dark else "k", anchor=(0.5, 0.5))
            item.setPos(c + 0.5, r + 0.5)
            self.heatmap.plot.addItem(item)
            self.cell_text.append(item)

    def _draw_bars(self, scores: ClassScores) -> None:
        self.bars.clear()
        count = len(scores.names)
        width = 0.27
        for k, (label, values) in enumerate((("precision", scores.precision),
                                             ("recall", scores.recall), ("F1", scores.f1))):
            x = np.arange(count) + (k - 1) * width
            self.bars.addItem(pg.BarGraphItem(x=x, height=values, width=width,
                                              brush=series_colour(k), name=label))
        axis = self.bars.getAxis("bottom")
        axis.setTicks([[(i, name) for i, name in enumerate(scores.names)]])
        self.bars.setXRange(-0.6, count - 0.4, padding=0)
        self.bars.setTitle("Per class (validation)")

    def _bar_data(self):
        shown = self.shown()
        if shown is None:
            return ["class"], [[]]
        scores = shown[1]
        return (["class", "precision", "recall", "f1", "support"],
                [list(scores.names), scores.precision.tolist(), scores.recall.tolist(),
                 scores.f1.tolist(), scores.support.tolist()])
