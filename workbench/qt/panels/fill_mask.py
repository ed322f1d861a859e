"""Fill in the blank: what a masked-LM encoder puts where a sentence says [MASK].

Seed 002's "What have language models learned?" probe: "In Texas, they like to buy _." against
"In New York, they like to buy _.", shown as likelihoods or as their differences. Type a
sentence with [MASK] (one or more), optionally a second one to compare; each mask gets a bar
chart of its most likely tokens. With a comparison, the chart shows the union of both top
lists, each token's probability in both sentences ("Likelihoods") or the first minus the second
("Differences").

BERT's sentence pairs: "A ||| B" is read as [CLS] A [SEP] B [SEP], sentence A of segment 0 and B
of segment 1 (the segment embedding added to each token's, with its position's). The line under
the chart shows each token's segment and, for a model trained with next-sentence prediction,
its probability that B follows A (IsNext); a pair needs no [MASK] for that.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

from workbench.core.predictions import FillMaskPrediction
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.boxes import column, series_colour
from workbench.qt.widgets.heatmap import visible_token
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.task_guard import require_task

DEFAULT_SENTENCE = "To be, or not to [MASK], that is the question"
CHARTS = ("Likelihoods", "Differences")
PAIR_SEPARATOR = "|||"  # core.tasks.sentence_pairs writes a pair so ("A ||| B")
SUBSCRIPTS = str.maketrans("01", "₀₁")


def pair_line(answer: FillMaskPrediction) -> str:
    """The pair as read, each token with its segment as a subscript ([CLS]₀ to₀ … [SEP]₁), and
    P(IsNext) where the model has next-sentence prediction; "" for one sentence."""
    if not answer.segments:
        return ""
    read = " ".join(f"{t.strip()}{str(s).translate(SUBSCRIPTS)}"
                    for t, s in zip(answer.tokens, answer.segments, strict=True))
    if answer.is_next is None:
        return (f"Read as a pair (segment ₀ = A, ₁ = B): {read}. This model has no "
                "next-sentence head (train with 'Next-sentence prediction' on).")
    verdict = "IsNext" if answer.is_next >= 0.5 else "NotNext"
    return (f"Read as a pair (segment ₀ = A, ₁ = B): {read}. Next sentence: P(IsNext) = "
            f"{answer.is_next:.0%}, so {verdict}.")


def compared(first: FillMaskPrediction, second: FillMaskPrediction
             ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The first masks' candidates of both sentences, each with its probability in both (0
    where a sentence's top list does not have it)."""
    a = dict(zip(first.candidates[0], first.probs[0].tolist(), strict=True))
    b = dict(zip(second.candidates[0], second.probs[0].tolist(), strict=True))
    seen = list(dict.fromkeys([*first.candidates[0], *second.candidates[0]]))
    # most likely first; ties keep the order of the lists (the first sentence's first)
    tokens = sorted(seen, key=lambda t: (-max(a.get(t, 0.0), b.get(t, 0.0)), seen.index(t)))
    return (tokens, np.array([a.get(t, 0.0) for t in tokens]),
            np.array([b.get(t, 0.0) for t in tokens]))


class FillMaskPanel(InspectorPanel):
    name: ClassVar[str] = "fill_mask"
    title: ClassVar[str] = "Fill in the blank"
    perspective: ClassVar[str] = "Generate"
    area: ClassVar[str] = "bottom"
    probe_text: ClassVar[str] = DEFAULT_SENTENCE
    probe_placeholder: ClassVar[str] = ("A sentence with [MASK], or a pair 'sentence A ||| "
                                        "sentence B' (BERT's next-sentence prediction)")
    lesson_probes: ClassVar[bool] = False

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.answers: list[FillMaskPrediction] = []
        self.compare = QLineEdit(placeholderText="Optional: a second sentence with [MASK] to "
                                                 "compare (Texas / New York: what differs?)")
        self.compare.returnPressed.connect(self.probe_bar.probe)
        self.chart = QComboBox()
        self.chart.addItems(CHARTS)
        self.chart.currentIndexChanged.connect(lambda _: self._draw())
        self.summary = QLabel("Pretrain a masked-LM encoder (task: Masked-LM pretraining), then "
                              "write [MASK] where a word should be guessed.", wordWrap=True)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMenuEnabled(False)
        self.plot.getAxis("left").enableAutoSIPrefix(False)  # 0.04, not 40 (×0.001)
        self.plot.addLegend(offset=(-10, 10))
        self.export = PlotExportBar(self.plot, self._data, "fill-mask", controller.report_error)
        for widget in (QLabel("Compare with:"), self.compare, QLabel("Chart:"), self.chart):
            self.controls.addWidget(widget)
        self.add_line(self.summary)
        self.set_body(column(self.plot, self.export))

    def request(self, snapshot: Any, text: str):
        require_task(snapshot, "masked_lm", "fill in blanks")
        texts = [text] + ([self.compare.text()] if self.compare.text().strip() else [])
        return self.controller.backend.inspection.answer_job(snapshot, texts)

    def draw(self, answers: list[FillMaskPrediction]) -> None:
        self.answers = list(answers)
        self._draw()

    def _draw(self) -> None:
        self.plot.clear()
        if not self.answers:
            return
        first = self.answers[0]
        if len(self.answers) > 1 and first.candidates and self.answers[1].candidates:
            self._draw_comparison(first, self.answers[1])
            return
        # one sentence: a group of bars per mask, its top tokens left to right
        labels, ticks = [], []
        x = 0
        pair = pair_line(first)
        for m, (tokens, probs) in enumerate(zip(first.candidates, first.probs, strict=True)):
            xs = np.arange(len(tokens)) + x
            self.plot.addItem(pg.BarGraphItem(x=xs, height=probs, width=0.7,
                                              brush=series_colour(m), name=f"[MASK] {m + 1}"))
            # a word's start shows its space as "·" (as the Attention axes do): " h" and "h"
            # are different tokens and read alike otherwise
            ticks += [(int(xi), visible_token(t)) for xi, t in zip(xs, tokens, strict=True)]
            labels.append(f"[MASK] {m + 1}: {tokens[0]!r} {probs[0]:.0%}")
            x += len(tokens) + 1
        self.plot.getAxis("bottom").setTicks([ticks])
        self.plot.setLabel("left", "probability")
        if labels:
            self.plot.setXRange(-0.6, x - 1.4, padding=0)
        masks = "Most likely: " + "; ".join(labels) if labels else ""
        self.summary.setText("\n".join(line for line in (masks, pair) if line))

    def _draw_comparison(self, first: FillMaskPrediction, second: FillMaskPrediction) -> None:
        tokens, a, b = compared(first, second)
        xs = np.arange(len(tokens))
        if self.chart.currentText() == "Differences":
            diff = a - b
            self.plot.addItem(pg.BarGraphItem(
                x=xs, height=diff, width=0.7, name="first − second",
                brushes=[series_colour(0 if d >= 0 else 1) for d in diff]))
            self.plot.setLabel("left", "p(first) − p(second)")
        else:
            self.plot.addItem(pg.BarGraphItem(x=xs - 0.18, height=a, width=0.35,
                                              brush=series_colour(0), name="first sentence"))
            self.plot.addItem(pg.BarGraphItem(x=xs + 0.18, height=b, width=0.35,
                                              brush=series_colour(1), name="second sentence"))
            self.plot.setLabel("left", "probability")
        ticks = [(int(i), visible_token(t)) for i, t in zip(xs, tokens, strict=True)]
        self.plot.getAxis("bottom").setTicks([ticks])
        self.plot.setXRange(-0.6, len(tokens) - 0.4, padding=0)
        self.summary.setText(f"First [MASK] of each sentence: {first.candidates[0][0]!r} "
                             f"({first.probs[0][0]:.0%}) against {second.candidates[0][0]!r} "
                             f"({second.probs[0][0]:.0%}).")

    def _data(self):
        if not self.answers:
            return ["token", "probability"], [[], []]
        if len(self.answers) > 1:
            tokens, a, b = compared(self.answers[0], self.answers[1])
            return ["token", "first", "second"], [tokens, a.tolist(), b.tolist()]
        first = self.answers[0]
        rows = [(m, t, float(p)) for m, (ts, ps) in enumerate(zip(first.candidates,
                                                                 first.probs, strict=True))
                for t, p in zip(ts, ps, strict=True)]
        return (["mask", "token", "probability"],
                [[r[0] + 1 for r in rows], [r[1] for r in rows], [r[2] for r in rows]])
