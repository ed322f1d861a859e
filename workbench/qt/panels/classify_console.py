"""Classify console: type a sentence, see its label distribution and which words decided it.

The answer comes from the snapshot's classifier (a query on a private copy, beside training).
The words are drawn over coloured backgrounds: with attention pooling the colours are the
pooling weights α_t (the sentence vector is Σ α_t h_t); otherwise gradient × input
(Σ_d e_t,d · ∂z/∂e_t,d for the predicted label's logit z), blue against and orange for. The
panel says which one it shows. Seed 003's order-sensitivity pair ("The food was good, not bad
at all" / "The food was bad, not good at all") is the default probe: a bag of words cannot
tell them apart, a recurrent encoder can.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter

from workbench.core.predictions import ClassifyPrediction
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.boxes import column, series_colour
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.task_guard import require_task
from workbench.qt.widgets.token_colours import coloured_tokens_html, legend_html
from workbench.qt.zoom import set_larger

DEFAULT_SENTENCE = "The food was good, not bad at all"


class ClassifyConsolePanel(InspectorPanel):
    name: ClassVar[str] = "classify"
    title: ClassVar[str] = "Classify"
    perspective: ClassVar[str] = "Generate"
    area: ClassVar[str] = "bottom"
    probe_text: ClassVar[str] = DEFAULT_SENTENCE
    probe_placeholder: ClassVar[str] = "A sentence to classify"
    lesson_probes: ClassVar[bool] = False

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.answer: ClassifyPrediction | None = None
        self.verdict = QLabel("Train or open a classifier, then type a sentence.",
                              objectName="classify-verdict")
        set_larger(self.verdict, 1.45, bold=True)  # grows with the zoom (a fixed 13pt did not)
        self.words = QLabel(wordWrap=True, objectName="classify-words")
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.method = QLabel(wordWrap=True)
        self.method.setStyleSheet("color: #555555")
        self.labels_plot = pg.PlotWidget(background="w", title="Label distribution")
        self.labels_plot.setMenuEnabled(False)
        self.labels_plot.setXRange(0, 1)
        self.labels_plot.setLabel("bottom", "probability")
        self.tokens_plot = pg.PlotWidget(background="w", title="Per-token contribution")
        self.tokens_plot.setMenuEnabled(False)
        self.tokens_plot.getAxis("left").enableAutoSIPrefix(False)  # weights read as 0.3, not 300
        self.labels_export = PlotExportBar(self.labels_plot, self._label_data, "labels",
                                           controller.report_error)
        self.tokens_export = PlotExportBar(self.tokens_plot, self._token_data, "contributions",
                                           controller.report_error)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(column(self.labels_plot, self.labels_export))
        plots.addWidget(column(self.tokens_plot, self.tokens_export))
        plots.setSizes([300, 600])
        for widget in (self.verdict, self.words, self.legend, self.method):
            self.add_line(widget)
        self.set_body(plots)

    def request(self, snapshot: Any, text: str):
        require_task(snapshot, "classify", "classify sentences")
        return self.controller.backend.inspection.answer_job(snapshot, text)

    def draw(self, answer: ClassifyPrediction) -> None:
        self.answer = answer
        best = int(np.argmax(answer.probs))
        self.verdict.setText(f"{answer.labels[best]}  ({answer.probs[best]:.1%})")
        signed = answer.method == "gradient"
        self.words.setText(coloured_tokens_html(answer.tokens, answer.contributions, signed))
        self.legend.setText(legend_html(signed))
        self.method.setText(answer.explanation)
        self._draw_labels(answer, best)
        self._draw_tokens(answer, signed)

    def _draw_labels(self, answer: ClassifyPrediction, best: int) -> None:
        self.labels_plot.clear()
        count = len(answer.labels)
        brushes = [series_colour(1 if k == best else 0) for k in range(count)]
        self.labels_plot.addItem(pg.BarGraphItem(x0=0, y=np.arange(count), height=0.6,
                                                 width=answer.probs, brushes=brushes))
        self.labels_plot.getAxis("left").setTicks([[(k, name) for k, name in
                                                    enumerate(answer.labels)]])
        self.labels_plot.setYRange(-0.6, count - 0.4, padding=0)
        self.labels_plot.setXRange(0, 1, padding=0.02)

    def _draw_tokens(self, answer: ClassifyPrediction, signed: bool) -> None:
        self.tokens_plot.clear()
        values = np.asarray(answer.contributions, dtype=np.float64)
        brushes = [series_colour(1 if (v >= 0 or not signed) else 0) for v in values]
        self.tokens_plot.addItem(pg.BarGraphItem(x=np.arange(len(values)), height=values,
                                                 width=0.7, brushes=brushes))
        self.tokens_plot.getAxis("bottom").setTicks([[(i, t) for i, t in
                                                      enumerate(answer.tokens)]])
        self.tokens_plot.setLabel("left", "gradient × input" if signed else "weight α")
        self.tokens_plot.setXRange(-0.6, len(values) - 0.4, padding=0)

    def _label_data(self):
        answer = self.answer
        if answer is None:
            return ["label", "probability"], [[], []]
        return ["label", "probability"], [list(answer.labels), answer.probs.tolist()]

    def _token_data(self):
        answer = self.answer
        if answer is None:
            return ["token", "contribution"], [[], []]
        return (["token", answer.method], [list(answer.tokens),
                                           answer.contributions.tolist()])
