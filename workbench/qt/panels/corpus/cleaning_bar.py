"""The cleaning bar under the corpus header: what a loaded text carries that is not the
author's (Project Gutenberg header and footer, _italic_/~bold~ marks, control characters such
as the DOS end-of-file byte), an offer to remove it, what was removed, and the cleaning
settings with a user's exclude pattern.

The settings are part of the Corpus panel's options (`controller.corpus_options["cleaning"]`),
so the next load (a reload, the File menu, a recent file) cleans the same way, and the recipe
of a run records them (core/training/recipe.py), so a run trains on the same text again.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.cleaning import CleaningConfig
from workbench.qt.widgets.config_form import ConfigForm

KIND_FIELDS = {"gutenberg": "gutenberg", "markup": "markup", "control": "control"}


class CleaningBar(QFrame):
    """Emits `apply_requested(CleaningConfig)`: load the corpus again cleaned this way."""

    apply_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cleaning-bar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#cleaning-bar { background: #fff6df; }")
        self.corpus = None
        self.message = QLabel(wordWrap=True)
        self.clean_button = QPushButton("Clean it")
        self.clean_button.setToolTip("Load the corpus again without what is listed here")
        self.clean_button.clicked.connect(self.clean_found)
        self.show_button = QPushButton("Show what goes…")
        self.show_button.clicked.connect(self.show_listing)
        self.settings_button = QPushButton("Cleaning settings…")
        self.settings_button.setCheckable(True)
        self.settings_button.toggled.connect(lambda on: self.settings.setVisible(on))
        self.form = ConfigForm(CleaningConfig)
        apply = QPushButton("Apply and reload")
        apply.clicked.connect(self._apply_form)
        self.settings = QWidget()
        box = QVBoxLayout(self.settings)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.form)
        box.addWidget(apply)
        self.settings.hide()
        buttons = QHBoxLayout()
        for button in (self.clean_button, self.show_button, self.settings_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        layout.addWidget(self.settings)
        self.dialog: QDialog | None = None
        self.hide()

    def config(self) -> CleaningConfig:
        return self.form.config() or CleaningConfig()

    def show_corpus(self, corpus) -> None:
        """Offer what the cleaning would remove; say what it did remove."""
        self.corpus = corpus
        cleaned, cleanable = corpus.cleaned, corpus.cleanable
        self.form.set_config(corpus.cleaning)
        parts = []
        if not cleaned.empty:
            parts.append("<b>Cleaned</b>, removed: " + _lines(cleaned.summary()))
        if not cleanable.empty:
            parts.append("<b>This text holds what is usually not the author's</b>: "
                         + _lines(cleanable.summary())
                         + "<br>A model trained on it learns it too.")
        self.message.setText("<br>".join(parts))
        self.clean_button.setVisible(not cleanable.empty)
        self.show_button.setText("Show what was removed…" if cleanable.empty
                                 else "Show what would go…")
        self.setVisible(bool(parts) or self.settings_button.isChecked())

    def clean_found(self) -> None:
        """Turn on the rules that found something, keep the others as they are, reload."""
        found = set(self.corpus.cleanable.counts) if self.corpus is not None else set()
        config = self.config()
        changes = {field: True for kind, field in KIND_FIELDS.items() if kind in found}
        self.apply_requested.emit(type(config)(**{**vars(config), **changes}))

    def _apply_form(self) -> None:
        problems = self.form.problems()
        if not problems:
            self.apply_requested.emit(self.config())

    def listing(self) -> str:
        corpus = self.corpus
        if corpus is None:
            return ""
        blocks = []
        if not corpus.cleaned.empty:
            blocks.append("Removed by the cleaning:\n\n" + corpus.cleaned.listing())
        if not corpus.cleanable.empty:
            blocks.append("Would go with cleaning:\n\n" + corpus.cleanable.listing())
        return "\n\n".join(blocks) or "Nothing to clean."

    def show_listing(self) -> QDialog:
        dialog = QDialog(self)
        dialog.setWindowTitle("Corpus cleaning")
        text = QPlainTextEdit(self.listing())
        text.setReadOnly(True)
        layout = QVBoxLayout(dialog)
        layout.addWidget(text)
        dialog.resize(760, 480)
        dialog.show()  # not exec(): the window stays usable
        self.dialog = dialog
        return dialog


def _lines(summary: str) -> str:
    return "; ".join(html.escape(line) for line in summary.splitlines())
