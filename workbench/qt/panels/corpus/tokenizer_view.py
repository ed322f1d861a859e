"""Tokenizer settings (a form generated from `TokenizerConfig`) and what tokenizing produced:
the vocabulary, and which documents are held out (held_out_table.py), which the user may
choose."""

from __future__ import annotations

import dataclasses

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
from workbench.qt.panels.corpus.held_out_table import HeldOutTable
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
        # the held-out documents the user chose: (validation, test) names; () = the seed's
        self.chosen: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self.held_out = HeldOutTable()
        self.held_out.choice_changed.connect(self.choose_held_out)
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
        layout.addWidget(self.held_out)
        layout.addWidget(self.sample)
        layout.addWidget(self.vocabulary, 1)
        self.form.changed.connect(self._update_hints)
        self._update_hints()

    def set_config(self, config: TokenizerConfig) -> None:
        self.form.set_config(config)
        self._update_hints()

    def config(self) -> TokenizerConfig | None:
        """The settings shown with the held-out documents chosen in the table, or None while a
        number box holds no number. Recorded stretches never carry over: the next text may
        be another."""
        config = self.form.config()
        if config is None:
            return None
        return dataclasses.replace(config, split="documents",
                                   validation_documents=self.chosen[0],
                                   test_documents=self.chosen[1],
                                   validation_stretches=(), test_stretches=())

    def forget_held_out(self) -> None:
        """Back to the seed's choice (another corpus: its documents have other names)."""
        self.chosen = ((), ())

    def choose_held_out(self, validation: tuple, test: tuple) -> None:
        """Hold out these documents (both empty: the seed's choice) and split again."""
        self.chosen = (tuple(validation), tuple(test))
        self.request()

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
        return (f"Split: about {config.val_fraction:.0%} validation and "
                f"{config.test_fraction:.0%} test text, held out as whole documents (a "
                "corpus of three or more, at least one each; see the table) or as a few long "
                f"stretches of a single text; training about {train:.0%}. Nothing held out is "
                "trained on or beside, so validation measures text the model has not seen.")

    def show_tokens(self, tokens, text_head: str = "") -> None:
        """Describe a TokenizedCorpus: vocabulary, sizes, split, and a tokenized sample."""
        if tokens is None:
            self.result.setText("Not tokenized yet.")
            self.sample.clear()
            self.vocabulary.setRowCount(0)
            self.held_out.show_split("documents", [], False)
            return
        self._fill_vocabulary(tokens)
        plan = tokens.held_out
        self.held_out.show_split(plan.kind if plan is not None else "stripes",
                                 tokens.held_out_rows(), any(self.chosen), tokens.stripes())
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
