"""Tagging view: a sentence with its predicted tags, gold tags where known, and each word's
tag distribution (SLP3 9.4.1, Fig. 9.7: a softmax over the tag set at every word).

Type a sentence (words are cut as the data set cuts them, roughly), or write gold tags after
the words as `word/TAG` to compare, or take a sentence of the model's own test data ("Test
sentence", with its gold tags). The table shows each word over its predicted tag, the gold tag
(red when they differ) and the probability; the heatmap below shows p(tag | word) for every
tag, so the alternatives the model weighed are visible.
"""

from __future__ import annotations

import html
import re
from typing import Any, ClassVar

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
)

from workbench.core.predictions import TagPrediction
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.heatmap import Heatmap
from workbench.qt.widgets.task_guard import require_task

# a garden-path sentence with its gold tags ("the old" are the ones who man the boats)
DEFAULT_SENTENCE = "The/DET old/NOUN man/VERB the/DET boats/NOUN ./PUNCT"
_ROWS = ("word", "predicted", "gold", "p(predicted)")
_GOLD = re.compile(r"^(.+)/([A-Za-z$.,:()'`#\-]+)$")
WRONG = QColor("#D55E00")


def split_gold(text: str) -> tuple[list[str] | None, list[str] | None]:
    """'The/DET dog/NOUN' -> (['The', 'dog'], ['DET', 'NOUN']); text without a tag on every
    word -> (None, None), and the model cuts it into words itself."""
    parts = text.split()
    matches = [_GOLD.match(p) for p in parts]
    if not parts or not all(matches):
        return None, None
    return [m.group(1) for m in matches], [m.group(2) for m in matches]


class TaggingPanel(InspectorPanel):
    name: ClassVar[str] = "tagging"
    title: ClassVar[str] = "Tagging"
    perspective: ClassVar[str] = "Inspect"
    area: ClassVar[str] = "bottom"
    probe_text: ClassVar[str] = DEFAULT_SENTENCE
    probe_placeholder: ClassVar[str] = "A sentence to tag (word/TAG to give gold tags)"
    lesson_probes: ClassVar[bool] = False

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.answer: TagPrediction | None = None
        self.gold: list[str] | None = None
        self.pick = 0
        self.test_button = QPushButton("Test sentence")
        self.test_button.setToolTip("A sentence of the model's test data, with its gold tags.")
        self.test_button.clicked.connect(self.test_sentence)
        self.probe_bar.button_row.addWidget(self.test_button)
        self.summary = self.add_line(QLabel("Train or open a tagger, then type a sentence.",
                                            wordWrap=True))
        self.table = QTableWidget(len(_ROWS), 0, objectName="tagging-table")
        self.table.setVerticalHeaderLabels(_ROWS)
        self.table.horizontalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setFixedHeight(self.table.verticalHeader().length()
                                  + self.table.horizontalScrollBar().sizeHint().height() + 6)
        self.heatmap = Heatmap("", "word", "tag", name="tag-distribution",
                               on_error=controller.report_error)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.heatmap)
        self.set_body(split)

    def request(self, snapshot: Any, text: str):
        require_task(snapshot, "tag", "tag words")
        words, self.gold = split_gold(text)
        if words is None:
            return self.controller.backend.inspection.answer_job(snapshot, text)
        return self.controller.backend.inspection.answer_job(snapshot, " ".join(words),
                                                             {"words": words})

    def test_sentence(self) -> None:
        snapshot = self.probe_bar.snapshot
        if snapshot is None:
            self.controller.report_error("No model yet: train a tagger or open a checkpoint.")
            return
        self.pick += 1
        spec = self.controller.backend.inspection.test_sentence_job(snapshot, self.pick * 7919)
        self.controller.run_query(spec, on_result=self._use_sentence)

    def _use_sentence(self, sentence: tuple[list[str], list[str]]) -> None:
        words, tags = sentence
        self.probe_bar.text.setText(" ".join(f"{w}/{t}" for w, t in zip(words, tags,
                                                                         strict=True)))
        self.probe_bar.probe()

    def draw(self, answer: TagPrediction) -> None:
        gold = self.gold if self.gold is not None and len(self.gold) == len(answer.words) \
            else None
        self.answer = answer
        predicted = answer.predicted
        best = answer.probs.max(axis=1)
        self.table.setColumnCount(len(answer.words))
        for col, word in enumerate(answer.words):
            cells = (word, predicted[col], gold[col] if gold else "",
                     f"{best[col]:.0%}")
            for row, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if row == 0:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if row == 2 and gold and gold[col] != predicted[col]:
                    item.setForeground(WRONG)
                    item.setToolTip(f"The model says {predicted[col]}.")
                self.table.setItem(row, col, item)
        self.heatmap.set_data(answer.probs.T, list(answer.tags), list(answer.words),
                              levels=(0.0, 1.0), title="p(tag | word)")
        if gold:
            right = sum(p == g for p, g in zip(predicted, gold, strict=True))
            self.summary.setText(f"{right} of {len(gold)} words tagged as the gold tags say "
                                 f"({right / len(gold):.0%}); wrong ones in orange.")
        else:
            unsure = int(np.argmin(best))
            self.summary.setText(
                f"Least sure: “{html.escape(answer.words[unsure])}” "
                f"({predicted[unsure]} at {best[unsure]:.0%}). Write word/TAG to compare "
                "with gold tags, or take a test sentence.")
