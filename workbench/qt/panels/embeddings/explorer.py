"""Questions to ask of word vectors: neighbours, analogies, similarity, odd one out, own quads.

Every answer is a matrix-vector product over 100k unit vectors (a few ms on a quiet machine, far
more on a busy one, and the first question normalises the matrix), so each question is a query
job on the controller's queue, never GUI-thread work; asking again replaces a question still
waiting. A word missing as typed is looked up in another case (vectors trained on lowercased
text know 'romeo', not 'Romeo'), and the message line says so.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor
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

from workbench.core.api import Answer
from workbench.core.events import failure_text
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.qt.widgets.boxes import row as row_of
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
    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
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
        for group in (neighbours, analogy, pairs, own, self._features_group()):
            layout.addWidget(group)

    def _features_group(self) -> QGroupBox:
        """The course's words × features table (seed 003), each feature a semantic axis a → b
        read off the vectors: a word's cosine with it, −1 on a's side to +1 on b's."""
        self.feature_words = QLineEdit("king queen man woman prince princess boy girl")
        self.feature_axes = QLineEdit("man:woman boy:man peasant:king")
        self.feature_axes.setToolTip("Axes as a:b pairs separated by spaces (man:woman is the "
                                     "gender axis, from man's side to woman's)")
        self.feature_table = QTableWidget(0, 0)
        table = QPushButton("Table")
        table.clicked.connect(self.tabulate_features)
        group = QGroupBox("Words × features (semantic axes a → b)")
        form = QFormLayout(group)
        form.addRow("words", self.feature_words)
        form.addRow("axes", row_of(self.feature_axes, table))
        form.addRow(self.feature_table)
        return group

    def tabulate_features(self) -> bool:
        words = self.feature_words.text().replace(",", " ").split()
        axes = [tuple(pair.split(":", 1)) for pair in self.feature_axes.text().split()
                if pair.count(":") == 1]

        def show(answer: Answer) -> None:
            values = answer.value
            self.feature_table.setRowCount(len(words))
            self.feature_table.setColumnCount(len(axes))
            self.feature_table.setVerticalHeaderLabels(words)
            self.feature_table.setHorizontalHeaderLabels([f"{a} → {b}" for a, b in axes])
            for i in range(len(words)):
                for j in range(len(axes)):
                    value = float(values[i, j])
                    item = QTableWidgetItem(f"{value:+.2f}")
                    item.setBackground(QColor("#f6c8a8" if value > 0 else "#b9d5ee")
                                       if abs(value) >= 0.1 else QColor("white"))
                    self.feature_table.setItem(i, j, item)
        return self._ask("features", lambda backend, vectors: backend.feature_table_job(
            vectors, words, axes), show)

    def set_vectors(self, vectors) -> None:
        self.vectors = vectors
        self.message.setText(self._summary())

    def _summary(self) -> str:
        vectors = self.vectors
        return (f"{vectors.source}: {len(vectors):,} words × {vectors.size} dimensions."
                if vectors is not None else "")

    def _answered(self, forms: dict[str, str]) -> None:
        """After an answer: name the words found only in another case, else the summary (so an
        earlier question's error does not linger)."""
        swaps = [f"'{typed}' → '{form}'" for typed, form in forms.items()]
        self.message.setText("Not in the vocabulary as typed, so looked up in another case: "
                             + ", ".join(swaps) + "." if swaps else self._summary())

    def _ask(self, name: str, make: Callable[..., JobSpec], show: Callable[[Answer], None]
             ) -> bool:
        """Queue the question `make(embeddings backend, vectors)`; `show` gets its Answer."""
        if self.vectors is None:
            self.message.setText("No vectors yet: train or import some first.")
            return False
        try:
            spec = make(self.controller.backend.embeddings, self.vectors)
        except UserFacingError as exc:
            self.message.setText(str(exc))
            return False

        def answered(answer) -> None:
            show(answer)
            if isinstance(answer, Answer):
                self._answered(answer.forms)
        return self.controller.run_query(spec, on_result=answered, on_error=self._failed,
                                         caller=f"explorer:{name}")

    def _failed(self, outcome) -> None:
        self.message.setText(failure_text(outcome) or "The question was cancelled.")

    def find_neighbours(self) -> bool:
        words = self.word.text().replace(",", " ").split()

        def show(answer: Answer) -> None:
            # "of" names the form searched for ('romeo' when 'Romeo' was typed)
            self.neighbour_rows = answer.value
            _fill(self.neighbour_table, answer.value)
        return self._ask("neighbours", lambda api, v: api.neighbours_job(v, words, self.k.value()),
                         show)

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

    def solve_analogy(self) -> bool:
        method = METHODS[self.method.currentText()]
        a, b, c = (w.text().strip() for w in (self.a, self.b, self.c))
        return self._ask("analogy", lambda api, v: api.analogy_job(v, a, b, c, 10, method),
                         lambda answer: _fill(self.analogy_table, answer.value))

    def compare(self) -> bool:
        a, b = self.sim_a.text().strip(), self.sim_b.text().strip()
        return self._ask("similarity", lambda api, v: api.similarity_job(v, a, b),
                         lambda answer: self.similarity_label.setText(f"cos = {answer.value:.4f}"))

    def find_odd(self) -> bool:
        words = self.odd_words.text().replace(",", " ").split()
        return self._ask("odd", lambda api, v: api.odd_one_out_job(v, words),
                         lambda answer: self.odd_label.setText(f"odd one out: {answer.value}"))

    def score_quads(self) -> bool:
        method = METHODS[self.method.currentText()]
        text = self.quads.toPlainText()
        return self._ask("quads", lambda api, v: api.user_analogies_job(v, text, method),
                         lambda rows: _fill(self.quad_table, [(q, a, "yes" if ok else "no")
                                                              for q, a, ok in rows]))
