"""The Embeddings panel's "Use in a model" tab: the word vectors shown become the starting rows
of the next language model's input embedding. The check looks each token of the session's
tokenizer up in the vectors (a query) and reports the coverage; a new tokenizer afterwards
makes the chosen rows stale, and they are dropped with a word."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QCheckBox, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from workbench.core.events import failure_text
from workbench.core.jobs import UserFacingError


class BridgeTab(QWidget):
    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.freeze = QCheckBox("Freeze the embedding during training")
        self.check = QPushButton("Check coverage and use these vectors")
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setPlaceholderText(
            "Initialise the next language model's input embedding from these vectors. The "
            "coverage report lists which of the tokenizer's tokens have a vector.")
        layout = QVBoxLayout(self)
        layout.addWidget(self.freeze)
        layout.addWidget(self.check)
        layout.addWidget(self.report)
        controller.tokens_changed.connect(self._on_tokens_changed)

    @Slot(object)
    def _on_tokens_changed(self, _tokens) -> None:
        """Rows were chosen for the old vocabulary: they would land on the wrong tokens."""
        if self.controller.embedding_init is not None:
            self.controller.embedding_init = None
            self.report.setPlainText(
                "The tokenizer changed, so the chosen vectors no longer match its vocabulary. "
                "Check coverage again to use them.")

    def use_in_model(self, vectors) -> bool:
        """Match `vectors` to the tokenizer's vocabulary (a query); the report follows."""
        tokens = self.controller.tokens
        if vectors is None or tokens is None:
            self.report.setPlainText("Train or import vectors and tokenize a corpus first.")
            return False
        try:
            spec = self.controller.backend.embeddings.embedding_init_job(
                vectors, tokens.tokenizer, self.freeze.isChecked())
        except UserFacingError as exc:
            self.report.setPlainText(str(exc))
            return False
        self.report.setPlainText("Looking the vocabulary up in the vectors…")
        return self.controller.run_query(
            spec, on_result=lambda init: self._use_init(init, tokens),
            on_error=lambda outcome: self.report.setPlainText(
                failure_text(outcome) or "Cancelled."), caller="embeddings:bridge")

    def _use_init(self, init, tokens) -> None:
        if tokens is not self.controller.tokens:
            self.report.setPlainText("The tokenizer changed meanwhile: check coverage again to "
                                     "use these vectors.")
            return
        # the contract with the trainer: (matrix (V, d), freeze), applied when present
        self.controller.embedding_init = (init.matrix, init.freeze)
        missing = ", ".join(init.missing[:300]) + (" …" if len(init.missing) > 300 else "")
        self.report.setPlainText(
            f"Coverage: {len(init.found)} of {len(init.found) + len(init.missing)} tokens "
            f"({init.coverage:.1%}) have a vector of size {init.matrix.shape[1]}.\n"
            f"The next model started with Train in the Training panel begins from these rows "
            f"({'frozen' if init.freeze else 'fine-tuned'}); its embedding size must be "
            f"{init.matrix.shape[1]}. Tokens without a vector start random (the special tokens "
            f"at zero).\n\n"
            f"Not found: {missing}")
