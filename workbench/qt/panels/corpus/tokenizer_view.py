"""Tokenizer settings (a form generated from `TokenizerConfig`) and what tokenizing produced."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.qt.widgets.config_form import ConfigForm

# Which fields matter for which tokenizer; the others are greyed out.
ONLY_FOR = {"lowercase": {"word"}, "max_word_vocab": {"word"}, "word_pattern": {"word"},
            "bpe_vocab_size": {"bpe"}, "min_count": {"char", "word"}}
SAMPLE_CHARS = 160
VOCAB_ROWS = 2000  # enough to browse; a 30k-word vocabulary would make the table sluggish


def visible_token(token: str) -> str:
    """Spaces, tabs and line breaks drawn as signs, so ' the' and 'the' look different.

    Pass `readable_token(i)`, not `token(i)`: a BPE piece holding part of a character's
    bytes then reads `<0xE2><0x80>` instead of a bare replacement sign."""
    return token.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")


class TokenizerView(QWidget):
    tokenize_requested = Signal(object)  # TokenizerConfig

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # the generated form every panel shares; problems go in the split note below
        self.form = ConfigForm(TokenizerConfig, show_problems=False)
        self.editors = self.form.editors
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
        layout.addWidget(self.form)
        layout.addWidget(self.split_note)
        layout.addWidget(self.button)
        layout.addWidget(self.result)
        layout.addWidget(self.sample)
        layout.addWidget(self.vocabulary, 1)
        self.form.changed.connect(self._update_hints)
        self._update_hints()

    def set_config(self, config: TokenizerConfig) -> None:
        self.form.set_config(config)
        self._update_hints()

    def config(self) -> TokenizerConfig | None:
        """The settings shown, or None while a number box holds no number."""
        return self.form.config()

    def request(self) -> None:
        config = self.config()
        if config is not None and not config.problems():
            self.tokenize_requested.emit(config)

    def _update_hints(self, *_args) -> None:
        config = self.config()
        if config is None:
            self.split_note.setText("<b style='color:#b00'>A number box is not a number.</b>")
            self.button.setEnabled(False)
            return
        for name, kinds in ONLY_FOR.items():
            self.editors[name].setEnabled(config.kind in kinds)
        problems = config.problems()
        train = 1 - config.val_fraction - config.test_fraction
        self.split_note.setText(
            self._split_text(config, train)
            + (f"<br><b style='color:#b00'>{' '.join(problems)}</b>" if problems else ""))
        self.button.setEnabled(not problems)

    @staticmethod
    def _split_text(config, train: float) -> str:
        shares = (f"train = the first {train:.0%}, then validation {config.val_fraction:.0%}, "
                  f"then test {config.test_fraction:.0%}")
        if config.split_stripes == 1:
            return f"Split: contiguous blocks of the token ids, in order: {shares}."
        return (f"Split: the token ids are cut into up to {config.split_stripes} equal stripes "
                "(at least 10,000 tokens each), nothing shuffled; in every stripe "
                f"{shares}. So validation samples the whole corpus.")

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
            f"({sizes['val'] / n:.1%}) · test {sizes['test']:,} ({sizes['test'] / n:.1%}), "
            f"from {tokens.stripes()} stripe{'s' if tokens.stripes() != 1 else ''}"
            f"<br>unknown tokens: {unknown:,} ({unknown / n:.2%})")
        head = text_head[:SAMPLE_CHARS]
        if head:
            pieces = [tokens.tokenizer.readable_token(i) for i in tokens.tokenizer.encode(head)]
            # a zero-width space after each bar lets the label wrap (no spaces to break at)
            shown = "│\u200b".join(visible_token(p) for p in pieces)
            self.sample.setText(f"First tokens: {shown}")

    def _fill_vocabulary(self, tokens) -> None:
        tokenizer, counts = tokens.tokenizer, tokens.token_counts
        rows = min(tokenizer.vocab_size, VOCAB_ROWS)
        self.vocabulary.setRowCount(rows)
        for i in range(rows):
            count = "" if counts is None else f"{int(counts[i]):,}"
            shown = visible_token(tokenizer.readable_token(i))
            for column, text in enumerate((str(i), shown, count)):
                item = QTableWidgetItem(text)
                if column != 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.vocabulary.setItem(i, column, item)
        shown = "" if rows == tokenizer.vocab_size else f" (first {rows:,} shown)"
        self.vocabulary.setToolTip(f"Vocabulary of {tokenizer.vocab_size:,} ids{shown}; "
                                   "ids 0-3 are the special tokens.")
