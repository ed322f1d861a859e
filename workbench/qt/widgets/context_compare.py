"""Static against contextual: one word in two sentences, through a language model (the Next
token inspector's "Static vs contextual" tab; the course's context-free against context-based
embeddings, seed 002). The input row E[x] of a word is one vector wherever it stands (a
transformer adds its position to it); each layer's state at the word is the model's reading of
it in its sentence. The tab compares the word's vectors in the two sentences, layer by layer,
by cosine similarity: 1 for the static row, lower as the context moves them apart. A causal
model reads only the words before: the state at a word's last token is what it knows there."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from workbench.core.trace import Trace
from workbench.qt.widgets.boxes import readable, row, series_colour, set_title
from workbench.qt.widgets.plot_export import PlotExportBar

STATE_KEYS = ("h", "resid")  # a recurrent layer's state, a transformer block's output stream


def word_position(trace: Trace, word: str) -> int:
    """The token that ends the last occurrence of `word` in the traced text (a token equal to
    it when the tokens are words); -1 when it does not occur."""
    texts = [str(t) for t in trace.token_text]
    wanted = word.strip()
    if not wanted:
        return -1
    whole = [i for i, t in enumerate(texts) if t.casefold() == wanted.casefold()]
    if whole:
        return whole[-1]
    ends, joined = [], ""
    for text in texts:
        joined += "" if text.startswith("<") and text.endswith(">") else text
        ends.append(len(joined))
    start = joined.rfind(wanted)
    if start < 0:
        return -1
    last = start + len(wanted)  # the token whose text reaches the word's last character
    return next(i for i, end in enumerate(ends) if end >= last)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b / norm) if norm > 0 else float("nan")


def context_similarities(first: Trace, second: Trace, word: str
                         ) -> tuple[list[str], list[float]]:
    """(names, cosines): the input vectors, then each layer's state, at `word` in both."""
    a, b = word_position(first, word), word_position(second, word)
    for at, which in ((a, "first"), (b, "second")):
        if at < 0:
            raise ValueError(f"'{word}' is not in the {which} sentence.")
    names: list[str] = []
    sims: list[float] = []
    if first.embeddings is not None and second.embeddings is not None:
        positions = any(layer.kind == "attention" for layer in first.layers)
        names.append("input E[x] + position" if positions else "input E[x]")
        sims.append(cosine(first.embeddings[a], second.embeddings[b]))
    for layer_a, layer_b in zip(first.layers, second.layers, strict=False):
        key = next((k for k in STATE_KEYS if k in layer_a.values), None)
        if key is None or key not in layer_b.values:
            continue
        names.append(layer_a.name)
        sims.append(cosine(np.asarray(layer_a.values[key])[a],
                           np.asarray(layer_b.values[key])[b]))
    return names, sims


class ContextCompare(QWidget):
    """`probe(text, on_trace)` asks the panel's backend for a trace of the second sentence."""

    def __init__(self, probe: Callable[[str, Callable[[Trace], None]], bool],
                 on_error=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.probe = probe
        self.first: Trace | None = None
        self.second: Trace | None = None
        self.result: tuple[list[str], list[float]] = ([], [])
        self.other = QLineEdit("O, be some other name! What's in a name?")
        self.other.setObjectName("context-other")
        self.word = QLineEdit("be")
        self.word.setObjectName("context-word")
        self.word.setMaximumWidth(self.word.fontMetrics().horizontalAdvance("M" * 14))
        self.button = QPushButton("Compare")
        self.button.clicked.connect(self.compare)
        for edit in (self.other, self.word):
            edit.returnPressed.connect(self.compare)
        self.summary = QLabel("Probe a sentence above, type a second one and a word they share, "
                              "and press Compare.")
        self.summary.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        readable(self.plot)
        self.plot.setYRange(-1, 1)
        self.plot.setLabel("left", "cosine between the two sentences")
        layout = QVBoxLayout(self)
        layout.addWidget(row(QLabel("second sentence"), self.other))
        layout.addWidget(row(QLabel("word"), self.word, self.button, QWidget()))
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)
        layout.addWidget(PlotExportBar(self.plot, self._data, "static_vs_contextual", on_error))

    def set_first(self, trace: Trace) -> None:
        """The trace the panel's own probe gave (the first sentence)."""
        self.first = trace
        if self.second is not None:
            self._show()

    def compare(self) -> bool:
        if self.first is None:
            self.summary.setText("Probe the first sentence above first.")
            return False
        return self.probe(self.other.text(), self._second_traced)

    def _second_traced(self, trace: Trace) -> None:
        self.second = trace
        self._show()

    def _show(self) -> None:
        assert self.first is not None and self.second is not None
        word = self.word.text().strip()
        try:
            names, sims = context_similarities(self.first, self.second, word)
        except ValueError as exc:
            self.summary.setText(str(exc))
            return
        self.result = (names, sims)
        self.plot.clear()
        x = np.arange(len(names))
        self.plot.addItem(pg.BarGraphItem(x=x, height=sims, width=0.6, brushes=[
            series_colour(1 if name.startswith("input") else 0) for name in names]))
        self.plot.getAxis("bottom").setTicks([list(enumerate(names))])
        self.plot.setXRange(-0.6, len(names) - 0.4, padding=0)
        set_title(self.plot, f"'{word}' in the two sentences")
        pairs = list(zip(names, sims, strict=True))
        static = [f"the input row of '{word}' gives cosine {s:.3f} (1 when it is the same "
                  "vector: a transformer adds the position)" for n, s in pairs
                  if n.startswith("input")]
        layers = ", ".join(f"{n} {s:.3f}" for n, s in pairs if not n.startswith("input"))
        self.summary.setText(
            f"Static: {static[0] if static else 'no input rows in this trace'}. Contextual, at "
            f"the word's last token: {layers}. A causal model has read only what comes before "
            "the word.")

    def _data(self) -> tuple[list[str], list[list]]:
        names, sims = self.result
        return ["representation", "cosine"], [names, sims]
