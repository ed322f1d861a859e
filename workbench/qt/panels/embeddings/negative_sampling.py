"""The Negative sampling tab of the Embeddings panel: one skip-gram pair's loss with the trained
vectors' own numbers (core/worked/negative_sampling.py): the noise distribution, k noise words
drawn from it, and each term, beside a plot of the unigram and noise shares. A few dot products
of the vectors' width: computed at once, on the GUI thread."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.core.worked.negative_sampling import negative_sampling_example
from workbench.qt.widgets.boxes import row
from workbench.qt.widgets.worked_figure import WorkedFigure
from workbench.qt.widgets.worked_view import WorkedView

NO_OUTPUT = ("These vectors carry no output vectors u: train word2vec or fastText here with "
             "negative sampling (imported vectors and hierarchical softmax have none).")


class NegativeSamplingView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vectors = None
        self.centre, self.context = QLineEdit(), QLineEdit()
        self.centre.setObjectName("negative-centre")
        self.context.setObjectName("negative-context")
        self.k = QSpinBox(minimum=1, maximum=50, value=5)
        self.seed = QSpinBox(minimum=0, maximum=1_000_000)
        for box in (self.k, self.seed):
            box.setMaximumWidth(box.fontMetrics().horizontalAdvance("0000000") + 40)
        self.again = QPushButton("Draw again")
        self.again.setToolTip("Other noise words: the next seed")
        self.again.clicked.connect(lambda: self.seed.setValue(self.seed.value() + 1))
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.setWordWrap(True)
        form = QFormLayout()
        form.addRow("input word w_I", self.centre)
        form.addRow("output word w_O (in its window)", self.context)
        form.addRow("noise words k", row(self.k, QLabel("seed"), self.seed, self.again,
                                         QWidget()))
        for editor in (self.centre, self.context):
            editor.editingFinished.connect(self.recompute)
        for box in (self.k, self.seed):
            box.valueChanged.connect(self.recompute)
        self.view = WorkedView(NO_OUTPUT)
        self.figure = WorkedFigure()
        split = QSplitter()
        split.addWidget(self.view)
        split.addWidget(self.figure)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(split, 1)

    def set_vectors(self, vectors) -> None:
        """New vectors: a pair of their own to start from (a frequent word and the context
        the model finds likeliest for it)."""
        self.vectors = vectors
        usable = vectors is not None and vectors.output_vectors is not None \
            and vectors.counts is not None
        for widget in (self.centre, self.context, self.k, self.seed, self.again):
            widget.setEnabled(usable)
        if not usable:
            self.view.show_message(NO_OUTPUT)
            self.figure.show_figure(None)
            return
        centre = next((w for w in vectors.words if w.isalpha() and len(w) >= 4),
                      vectors.words[0])
        scores = vectors.output_vectors @ vectors.vectors[vectors.index[centre]]
        scores[vectors.index[centre]] = -np.inf
        self.centre.setText(centre)
        self.context.setText(vectors.words[int(np.argmax(scores))])
        self.recompute()

    def recompute(self) -> None:
        vectors = self.vectors
        if vectors is None or vectors.output_vectors is None or vectors.counts is None:
            return
        try:
            worked = negative_sampling_example(
                vectors.words, vectors.counts, vectors.vectors, vectors.output_vectors,
                self.centre.text().strip(), self.context.text().strip(), self.k.value(),
                self.seed.value(), vectors.noise_exponent)
        except ValueError as exc:
            self.problem.setText(str(exc))
            return
        self.problem.clear()
        cbow = vectors.architecture == "CBOW"
        header = ("<p style='color:#9a6700'>These vectors were trained with CBOW, whose input "
                  "is the mean of the window's vectors: one input word stands in for it "
                  "here.</p>" if cbow else "")
        self.view.show_computation(worked, header)
        self.figure.show_figure(worked.figure)
