"""Tokenizer settings (a form generated from `TokenizerConfig`) and what tokenizing produced."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.fields import form_fields
from workbench.core.config.tokenizer import TokenizerConfig

# Which fields matter for which tokenizer; the others are greyed out.
ONLY_FOR = {"lowercase": {"word"}, "max_word_vocab": {"word"}, "word_pattern": {"word"},
            "bpe_vocab_size": {"bpe"}, "min_count": {"char", "word"}}
SAMPLE_CHARS = 160
VOCAB_ROWS = 2000  # enough to browse; a 30k-word vocabulary would make the table sluggish


def visible_token(token: str) -> str:
    """Spaces, tabs and line breaks drawn as signs, so ' the' and 'the' look different."""
    return token.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")


def _editor(field: dataclasses.Field):
    meta, default = field.metadata, field.default
    if meta["choices"]:
        box = QComboBox()
        box.addItems([str(c) for c in meta["choices"]])
        return box
    if isinstance(default, bool):
        return QCheckBox()
    if isinstance(default, int):
        box = QSpinBox()
        box.setRange(int(meta["min"] or 0), int(meta["max"] or 1_000_000_000))
        box.setSingleStep(int(meta["step"] or 1))
        box.setGroupSeparatorShown(True)
        return box
    if isinstance(default, float):
        box = QDoubleSpinBox()
        box.setRange(meta["min"] or 0.0, meta["max"] or 1.0)
        box.setSingleStep(meta["step"] or 0.01)
        box.setDecimals(3)
        return box
    return QLineEdit()


class TokenizerView(QWidget):
    tokenize_requested = Signal(object)  # TokenizerConfig

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editors: dict[str, QWidget] = {}
        form = QFormLayout()
        for field in form_fields(TokenizerConfig):
            editor = _editor(field)
            editor.setToolTip(field.metadata["tooltip"])
            editor.setObjectName(f"tokenizer-{field.name}")
            label = QLabel(field.metadata["label"] + ":")
            label.setToolTip(field.metadata["tooltip"])
            form.addRow(label, editor)
            self.editors[field.name] = editor
        self.split_note = QLabel()
        self.split_note.setWordWrap(True)
        self.button = QPushButton("Tokenize")
        self.button.setToolTip("Build the vocabulary on this corpus, encode it and split it")
        self.button.clicked.connect(self.request)
        self.result = QLabel("Not tokenized yet.")
        self.result.setWordWrap(True)
        self.result.setObjectName("tokenizer-result")
        self.sample = QLabel()
        self.sample.setWordWrap(True)
        self.sample.setObjectName("tokenizer-sample")
        self.sample.setTextFormat(Qt.TextFormat.PlainText)
        self.vocabulary = QTableWidget(0, 3)
        self.vocabulary.setObjectName("tokenizer-vocabulary")
        self.vocabulary.setHorizontalHeaderLabels(["id", "token", "count in corpus"])
        self.vocabulary.verticalHeader().setVisible(False)
        self.vocabulary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.vocabulary.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)  # token and count share
        self.vocabulary.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.split_note)
        layout.addWidget(self.button)
        layout.addWidget(self.result)
        layout.addWidget(self.sample)
        layout.addWidget(self.vocabulary, 1)
        self.set_config(TokenizerConfig())
        for editor in self.editors.values():
            signal = getattr(editor, "currentIndexChanged", None) or getattr(
                editor, "valueChanged", None) or getattr(editor, "toggled", None) or \
                editor.textChanged
            signal.connect(self._update_hints)
        self._update_hints()

    def set_config(self, config: TokenizerConfig) -> None:
        for name, editor in self.editors.items():
            value = getattr(config, name)
            if isinstance(editor, QComboBox):
                editor.setCurrentText(str(value))
            elif isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
                editor.setValue(value)
            else:
                editor.setText(str(value))

    def config(self) -> TokenizerConfig:
        values = {}
        for name, editor in self.editors.items():
            if isinstance(editor, QComboBox):
                values[name] = editor.currentText()
            elif isinstance(editor, QCheckBox):
                values[name] = editor.isChecked()
            elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
                values[name] = editor.value()
            else:
                values[name] = editor.text()
        return TokenizerConfig(**values)

    def request(self) -> None:
        self.tokenize_requested.emit(self.config())

    def _update_hints(self, *_args) -> None:
        config = self.config()
        for name, kinds in ONLY_FOR.items():
            self.editors[name].setEnabled(config.kind in kinds)
        problems = config.problems()
        train = 1 - config.val_fraction - config.test_fraction
        self.split_note.setText(
            "Split: contiguous blocks of the token ids, in order, nothing shuffled: "
            f"train = the first {train:.0%}, then validation {config.val_fraction:.0%}, "
            f"then test {config.test_fraction:.0%}."
            + (f"<br><b style='color:#b00'>{' '.join(problems)}</b>" if problems else ""))
        self.button.setEnabled(not problems)

    def show_tokens(self, tokens, text_head: str = "") -> None:
        """Describe a TokenizedCorpus: vocabulary, sizes, split, and a tokenized sample."""
        if tokens is None:
            self.result.setText("Not tokenized yet.")
            self.sample.clear()
            self.vocabulary.setRowCount(0)
            return
        self._fill_vocabulary(tokens)
        sizes = tokens.split_sizes()
        n = max(1, len(tokens.ids))
        unknown = tokens.unknown_count()
        self.result.setText(
            f"<b>{tokens.tokenizer.kind}</b> tokenizer: vocabulary <b>{tokens.vocab_size:,}</b> "
            f"(4 special: &lt;pad&gt; &lt;unk&gt; &lt;bos&gt; &lt;eos&gt;), "
            f"<b>{len(tokens.ids):,}</b> tokens<br>train {sizes['train']:,} "
            f"({sizes['train'] / n:.1%}) · validation {sizes['val']:,} "
            f"({sizes['val'] / n:.1%}) · test {sizes['test']:,} ({sizes['test'] / n:.1%})"
            f"<br>unknown tokens: {unknown:,} ({unknown / n:.2%})")
        head = text_head[:SAMPLE_CHARS]
        if head:
            pieces = [tokens.tokenizer.token(i) for i in tokens.tokenizer.encode(head)]
            shown = "│".join(visible_token(p) for p in pieces)
            self.sample.setText(f"First tokens: {shown}")

    def _fill_vocabulary(self, tokens) -> None:
        tokenizer, counts = tokens.tokenizer, tokens.token_counts
        rows = min(tokenizer.vocab_size, VOCAB_ROWS)
        self.vocabulary.setRowCount(rows)
        for i in range(rows):
            count = "" if counts is None else f"{int(counts[i]):,}"
            for column, text in enumerate((str(i), visible_token(tokenizer.token(i)), count)):
                item = QTableWidgetItem(text)
                if column != 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.vocabulary.setItem(i, column, item)
        shown = "" if rows == tokenizer.vocab_size else f" (first {rows:,} shown)"
        self.vocabulary.setToolTip(f"Vocabulary of {tokenizer.vocab_size:,} ids{shown}; "
                                   "ids 0-3 are the special tokens.")
