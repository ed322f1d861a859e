"""Which documents (or stretches) of the corpus are training, validation and test text.

One row per document with a combo box in its last column: choosing one there re-splits the
corpus with that choice (`choice_changed`), and "Seed's choice" goes back to the documents the
seed draws. A corpus of one or two documents is split into long stretches: its rows say where
they lie and cannot be changed here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

SPLIT_LABELS = {"train": "training", "val": "validation", "test": "test"}
SPLITS = tuple(SPLIT_LABELS)


class HeldOutTable(QWidget):
    choice_changed = Signal(object, object)  # validation names, test names (tuples; () = seed)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel("Held-out text: tokenize to see which.")
        self.summary.setWordWrap(True)
        self.summary.setObjectName("held-out-summary")
        self.reset = QPushButton("Seed's choice")
        self.reset.setToolTip("Hold out the documents the seed draws (the default)")
        self.reset.clicked.connect(lambda: self.choice_changed.emit((), ()))
        self.reset.setEnabled(False)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("held-out-documents")
        self.table.setHorizontalHeaderLabels(["document", "characters", "tokens", "used for"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMaximumHeight(8 * self.table.verticalHeader().defaultSectionSize() + 30)
        self.combos: list[QComboBox] = []
        self.names: list[str] = []
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.summary, 1)
        top.addWidget(self.reset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table)

    def show_split(self, kind: str, rows: list[tuple[str, str, int, int]], chosen: bool,
                   stripes: int = 0) -> None:
        """`rows` (label, split, characters, tokens) of a 'documents' or 'stretches' split;
        `chosen`: the user named the documents (else the seed drew them)."""
        self.table.setRowCount(0)
        self.combos, self.names = [], []
        self.reset.setEnabled(chosen)
        self.table.setVisible(bool(rows))
        if kind == "stripes":
            self.summary.setText(f"Held-out text: {stripes} interleaved stripes, the split of "
                                 "runs made before whole documents were held out.")
            return
        self.table.setRowCount(len(rows))
        for row, (label, split, chars, tokens) in enumerate(rows):
            for column, text in ((0, label), (1, f"{chars:,}"), (2, f"{tokens:,}")):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
            if kind == "documents":
                combo = QComboBox()
                combo.addItems(list(SPLIT_LABELS.values()))
                combo.setCurrentIndex(SPLITS.index(split))
                combo.setToolTip(f"Train on {label}, or hold it out for validation or test")
                combo.currentIndexChanged.connect(self._on_choice)
                self.table.setCellWidget(row, 3, combo)
                self.combos.append(combo)
                self.names.append(label)
            else:
                self.table.setItem(row, 3, QTableWidgetItem(SPLIT_LABELS[split]))
        self.summary.setText(self._summary(kind, rows, chosen))

    @staticmethod
    def _summary(kind: str, rows, chosen: bool) -> str:
        held = {s: [r for r in rows if r[1] == s] for s in SPLITS}
        total = max(1, sum(r[2] for r in rows))

        def share(split: str) -> str:
            return f"{sum(r[2] for r in held[split]) / total:.0%}"

        if kind == "documents":
            how = "you chose" if chosen else "drawn from the seed"
            names = {s: ", ".join(r[0] for r in held[s]) or "none" for s in ("val", "test")}
            return (f"Held out whole documents ({how}): validation <b>{names['val']}</b> "
                    f"({share('val')}), test <b>{names['test']}</b> ({share('test')}). The model "
                    "never trains on them.")
        return (f"One text: held out {len(held['val'])} validation and {len(held['test'])} "
                f"test stretch(es) of {min((r[2] for r in rows if r[1] != 'train'), default=0):,}"
                f"+ characters ({share('val')} and {share('test')}), never interleaved with "
                "training text. Load a folder of documents to hold out whole ones.")

    def _on_choice(self, *_args) -> None:
        splits = [SPLITS[c.currentIndex()] for c in self.combos]
        if "train" not in splits:
            self.summary.setText("<b style='color:#b00'>Keep at least one document for "
                                 "training.</b>")
            return
        validation = tuple(n for n, s in zip(self.names, splits, strict=True) if s == "val")
        test = tuple(n for n, s in zip(self.names, splits, strict=True) if s == "test")
        self.choice_changed.emit(validation, test)
