"""Questions to ask of word vectors: neighbours, analogies, similarity, odd one out, own quads.

Every answer is one matrix-vector product over unit vectors (a few ms at 100k words), so it
runs directly on the GUI thread. A word missing as typed is looked up in another case (vectors
trained on lowercased text know 'romeo', not 'Romeo'), and the message line says so.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.jobs import UserFacingError
from workbench.qt.widgets.plot_export import export_csv

METHODS = {"3CosAdd: cos(x, b − a + c)": "3cosadd",
           "3CosMul: cos(x,b)·cos(x,c) / (cos(x,a)+ε)": "3cosmul"}


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    return table


def _fill(table: QTableWidget, rows: list[tuple]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            text = f"{value:.4f}" if isinstance(value, float) else str(value)
            table.setItem(r, c, QTableWidgetItem(text))


class Explorer(QWidget):
    def __init__(self, backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.vectors = None
        self.message = QLabel("Train or import vectors to explore them.")
        self.message.setWordWrap(True)

        self.word = QLineEdit("king")
        self.word.setToolTip("One word, or several separated by spaces: their neighbour lists "
                             "follow one another (and export together).")
        self.k = QSpinBox(minimum=1, maximum=200, value=10)
        self.neighbour_table = _table(["of", "neighbour", "cosine"])
        self.neighbour_rows: list[tuple[str, str, float]] = []
        find = QPushButton("Neighbours")
        find.clicked.connect(self.find_neighbours)
        self.word.returnPressed.connect(self.find_neighbours)
        export = QPushButton("CSV…")
        export.setToolTip("Export the neighbour lists shown as CSV")
        export.clicked.connect(self._export_dialog)
        neighbours = QGroupBox("Nearest neighbours (cosine)")
        row = QHBoxLayout()
        for widget in (self.word, QLabel("k"), self.k, find, export):
            row.addWidget(widget)
        box = QVBoxLayout(neighbours)
        box.addLayout(row)
        box.addWidget(self.neighbour_table)

        self.a, self.b, self.c = QLineEdit("man"), QLineEdit("king"), QLineEdit("woman")
        self.method = QComboBox()
        self.method.addItems(list(METHODS))
        self.analogy_table = _table(["answer", "score"])
        solve = QPushButton("Solve")
        solve.clicked.connect(self.solve_analogy)
        analogy = QGroupBox("Analogy: a is to b as c is to ?")
        form = QFormLayout(analogy)
        row = QHBoxLayout()
        for label, edit in (("a", self.a), ("b", self.b), ("c", self.c)):
            row.addWidget(QLabel(label))
            row.addWidget(edit)
        row.addWidget(solve)
        form.addRow(row)
        form.addRow("Method", self.method)
        form.addRow(self.analogy_table)

        self.sim_a, self.sim_b = QLineEdit("king"), QLineEdit("queen")
        self.similarity_label = QLabel("")
        self.odd_words = QLineEdit("king queen lord prince sword")
        self.odd_label = QLabel("")
        compare = QPushButton("Similarity")
        compare.clicked.connect(self.compare)
        odd = QPushButton("Odd one out")
        odd.clicked.connect(self.find_odd)
        pairs = QGroupBox("Similarity and odd one out")
        grid = QFormLayout(pairs)
        row = QHBoxLayout()
        for widget in (self.sim_a, self.sim_b, compare, self.similarity_label):
            row.addWidget(widget)
        grid.addRow(row)
        row = QHBoxLayout()
        for widget in (self.odd_words, odd, self.odd_label):
            row.addWidget(widget)
        grid.addRow(row)

        self.quads = QPlainTextEdit("man king woman queen\nday night good evil\n")
        self.quads.setPlaceholderText("one analogy per line: a b c d (a is to b as c is to d)")
        self.quad_table = _table(["question", "model's answer", "right?"])
        score = QPushButton("Score my analogies")
        score.clicked.connect(self.score_quads)
        own = QGroupBox("Your analogies")
        own_layout = QVBoxLayout(own)
        own_layout.addWidget(self.quads)
        own_layout.addWidget(score)
        own_layout.addWidget(self.quad_table)

        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        for group in (neighbours, analogy, pairs, own):
            layout.addWidget(group)

    def set_vectors(self, vectors) -> None:
        self.vectors = vectors
        self.message.setText(self._summary())

    def _summary(self) -> str:
        vectors = self.vectors
        return (f"{vectors.source}: {len(vectors):,} words × {vectors.size} dimensions."
                if vectors is not None else "")

    def _answered(self, words: list[str]) -> None:
        """After an answer: name the words found only in another case, else the summary (so an
        earlier question's error does not linger)."""
        swaps = [f"'{word}' → '{form}'" for word in words
                 if (form := self.vectors.lookup(word)) not in (None, word)]
        self.message.setText("Not in the vocabulary as typed, so looked up in another case: "
                             + ", ".join(swaps) + "." if swaps else self._summary())

    def _ask(self, question):
        if self.vectors is None:
            self.message.setText("No vectors yet: train or import some first.")
            return None
        try:
            return question()
        except UserFacingError as exc:
            self.message.setText(str(exc))
            return None

    def find_neighbours(self) -> None:
        words = self.word.text().replace(",", " ").split()
        # "of" names the form searched for ('romeo' when 'Romeo' was typed)
        rows = self._ask(lambda: [(self.vectors.lookup(w) or w, n, score) for w in words
                                  for n, score in self.vectors.neighbours(w, self.k.value())])
        if rows is not None:
            self.neighbour_rows = rows
            _fill(self.neighbour_table, rows)
            self._answered(words)

    def _export_dialog(self) -> None:
        if not self.neighbour_rows:
            self.message.setText("Ask for some neighbours first, then export them.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export neighbour lists", "neighbours.csv",
                                              "CSV files (*.csv)")
        if path:
            self.export_neighbours(path)

    def export_neighbours(self, path: str) -> bool:
        """Write the neighbour lists shown: query word, rank, neighbour, cosine."""
        rows = self.neighbour_rows
        ranks, previous, rank = [], None, 0
        for query, _, _ in rows:
            rank = rank + 1 if query == previous else 1
            previous = query
            ranks.append(rank)
        try:
            export_csv(path, ["word", "rank", "neighbour", "cosine"],
                       [[r[0] for r in rows], ranks, [r[1] for r in rows],
                        [f"{r[2]:.6f}" for r in rows]])
        except OSError as exc:
            self.message.setText(f"Could not write {path}: {exc}")
            return False
        self.message.setText(f"Exported {len(rows)} neighbours to {path}.")
        return True

    def solve_analogy(self) -> None:
        method = METHODS[self.method.currentText()]
        words = [w.text().strip() for w in (self.a, self.b, self.c)]
        rows = self._ask(lambda: self.vectors.analogy(*words, k=10, method=method))
        if rows is not None:
            _fill(self.analogy_table, rows)
            self._answered(words)

    def compare(self) -> None:
        words = [self.sim_a.text().strip(), self.sim_b.text().strip()]
        value = self._ask(lambda: self.vectors.similarity(*words))
        if value is not None:
            self.similarity_label.setText(f"cos = {value:.4f}")
            self._answered(words)

    def find_odd(self) -> None:
        words = self.odd_words.text().replace(",", " ").split()
        odd = self._ask(lambda: self.vectors.odd_one_out(words))
        if odd is not None:
            self.odd_label.setText(f"odd one out: {odd}")
            self._answered(words)

    def score_quads(self) -> None:
        method = METHODS[self.method.currentText()]
        rows = self._ask(lambda: self.backend.user_analogies(self.vectors,
                                                             self.quads.toPlainText(), method))
        if rows is not None:
            _fill(self.quad_table, [(q, a, "yes" if ok else "no") for q, a, ok in rows])
