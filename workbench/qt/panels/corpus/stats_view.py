"""Corpus statistics: the numbers, a log-log rank-frequency (Zipf) plot, word and char tables."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.corpus.statistics import CorpusStats
from workbench.qt.widgets.log_axis import log_axes
from workbench.qt.widgets.plot_export import PlotExportBar

MAX_PLOTTED_POINTS = 2000  # log-spaced ranks: a 500k-word vocabulary still draws instantly
NUMBERS = (
    ("characters", "Characters", "Every character, spaces and line breaks included."),
    ("words", "Words", "Runs of letters and digits (inner apostrophes kept), all documents."),
    ("lines", "Lines", "Line breaks, counted per document."),
    ("documents", "Documents", "Files loaded."),
    ("char_vocab", "Character vocabulary", "Distinct characters."),
    ("word_vocab", "Word vocabulary", "Distinct words, case-folded (The = the)."),
    ("type_token_ratio", "Type/token ratio", "Word vocabulary / words: lower means more "
     "repetition (it also falls as a corpus grows)."),
    ("zipf_slope", "Zipf slope", "Least-squares slope of log frequency on log rank; "
     "Zipf's law predicts about -1."),
)


def _fmt(value) -> str:
    return f"{value:,.3f}" if isinstance(value, float) else f"{value:,}"


def visible_char(ch: str) -> str:
    """A printable label for a character (spaces and controls are otherwise invisible)."""
    names = {" ": "␣ space", "\n": "↵ newline", "\t": "⇥ tab", "\u00a0": "no-break space"}
    if ch in names:
        return names[ch]
    if not ch.isprintable():
        return f"U+{ord(ch):04X}"
    return ch


def log_spaced(ranks: np.ndarray, counts: np.ndarray, limit: int = MAX_PLOTTED_POINTS):
    """At most `limit` points spread evenly in log rank (the plot's x axis)."""
    if len(ranks) <= limit:
        return ranks, counts
    picks = np.unique(np.geomspace(1, len(ranks), limit).astype(np.int64) - 1)
    return ranks[picks], counts[picks]


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    return table


def _fill(table: QTableWidget, rows: list[tuple], sort_column: int,
          order: Qt.SortOrder) -> None:
    table.setSortingEnabled(False)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem()
            if isinstance(value, (int, float)):  # sort numbers as numbers
                item.setData(Qt.ItemDataRole.DisplayRole, value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            else:
                item.setText(str(value))
            table.setItem(r, c, item)
    table.setSortingEnabled(True)
    table.sortByColumn(sort_column, order)  # otherwise the header's last indicator applies


class StatsView(QWidget):
    """The numbers and the Zipf plot of one corpus."""

    def __init__(self, on_error=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stats: CorpusStats | None = None
        grid = QGridLayout()
        self.values: dict[str, QLabel] = {}
        for i, (key, label, tip) in enumerate(NUMBERS):
            name = QLabel(label + ":")
            value = QLabel("–")
            value.setObjectName(f"stat-{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            for widget in (name, value):
                widget.setToolTip(tip)
            row, col = divmod(i, 2)
            grid.addWidget(name, row, 2 * col)
            grid.addWidget(value, row, 2 * col + 1)
            self.values[key] = value
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.plot = pg.PlotWidget(background="w", axisItems=log_axes("left", "bottom"))
        self.plot.setLogMode(x=True, y=True)
        self.plot.setLabel("bottom", "rank r (1 = most frequent word)")
        self.plot.setLabel("left", "frequency f(r)")
        self.plot.setTitle("Rank-frequency of words (log-log)", color="k")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.addLegend(offset=(-10, 10), labelTextColor="k")
        self.plot.setMinimumHeight(220)
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#1f77b4", width=2), name="corpus")
        self.reference = self.plot.plot([], [], pen=pg.mkPen("#d62728", width=1.5,
                                                            style=Qt.PenStyle.DashLine),
                                         name="Zipf: f ∝ 1/r")
        self.export_bar = PlotExportBar(self.plot, data=self.plot_data, name="zipf",
                                        on_error=on_error)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.export_bar)

    def show_stats(self, stats: CorpusStats | None) -> None:
        self.stats = stats
        for key, label in self.values.items():
            if stats is None:
                label.setText("–")
                continue
            value = getattr(stats, key)
            label.setText(_fmt(value() if callable(value) else value))
        if stats is None or len(stats.word_counts) == 0:
            self.curve.setData([], [])
            self.reference.setData([], [])
            return
        ranks, counts = log_spaced(*stats.zipf())
        self.curve.setData(ranks.astype(float), counts.astype(float))
        self.reference.setData(ranks.astype(float), counts[0] / ranks.astype(float))

    def plot_data(self):
        if self.stats is None:
            return ["rank", "frequency"], [[], []]
        ranks, counts = self.stats.zipf()
        return ["rank", "frequency"], [ranks.tolist(), counts.tolist()]


class TopWordsTable(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel("The most frequent words (case-folded).")
        self.table = _table(["rank", "word", "count", "% of words"])
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table)

    def show_stats(self, stats: CorpusStats | None) -> None:
        if stats is None:
            _fill(self.table, [], 0, Qt.SortOrder.AscendingOrder)
            return
        total = max(1, stats.words)
        _fill(self.table, [(i + 1, w, c, round(100 * c / total, 4))
                           for i, (w, c) in enumerate(stats.top_words)],
              0, Qt.SortOrder.AscendingOrder)
        self.note.setText(f"The {len(stats.top_words)} most frequent of {stats.word_vocab:,} "
                          "words (case-folded).")


class CharacterTable(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel("Every character of the corpus, most frequent first.")
        self.table = _table(["character", "code point", "count", "% of characters"])
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table)

    def show_stats(self, stats: CorpusStats | None) -> None:
        if stats is None:
            _fill(self.table, [], 2, Qt.SortOrder.DescendingOrder)
            return
        total = max(1, stats.characters)
        _fill(self.table, [(visible_char(ch), f"U+{ord(ch):04X}", c, round(100 * c / total, 4))
                           for ch, c in stats.char_inventory],
              2, Qt.SortOrder.DescendingOrder)
        self.note.setText(f"All {stats.char_vocab} distinct characters, most frequent first.")
