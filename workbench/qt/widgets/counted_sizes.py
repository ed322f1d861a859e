"""The sizes the Architecture panel counts an encoder task's model with, before its data is read.

A classifier's or tagger's vocabulary and label count come from its data when training starts,
so the panel counts with assumed ones, which the user can set: seed 002's tables count
Embedding(5000, 64) … Dense(6) and Embedding(20000, 128) … Dense(1), and setting these two
boxes reproduces them in the panel.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QSpinBox, QWidget

from workbench.core.config.base import ModelConfig, TaskConfig

if TYPE_CHECKING:
    from workbench.core.corpus.dataset import TokenizedCorpus

VOCAB_DEFAULT = 5000  # seed 002's vocabulary, also a language model's until a corpus is tokenized
SIDE_VOCAB_DEFAULT = 64  # a source or target vocabulary, until a task's data is prepared


def _spin(low: int, high: int, value: int, tooltip: str) -> QSpinBox:
    box = QSpinBox(minimum=low, maximum=high, value=value)
    box.setToolTip(tooltip)
    box.setGroupSeparatorShown(True)
    return box


class CountedSizes(QWidget):
    """Vocabulary and label count spin boxes; `changed` when either is edited."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel("The vocabulary and the labels come from the task's data when "
                           "training starts; the counts assume:", wordWrap=True)
        self.vocab = _spin(2, 1_000_000, VOCAB_DEFAULT, "Vocabulary size the counts assume "
                           "(5,000 in the Keras LSTM classifier of Vitrià's lecture \"Deep "
                           "Sequential Models & Embeddings\", 20,000 in its bidirectional one).")
        self.labels = _spin(1, 10_000, 2, "Labels (or tags) the counts assume (6 in "
                            "that lecture's classifier; 2 as one sigmoid unit in its "
                            "bidirectional one).")
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addRow(self.note)
        layout.addRow("Vocabulary:", self.vocab)
        self.labels_row = QLabel("Labels:")
        layout.addRow(self.labels_row, self.labels)
        for box in (self.vocab, self.labels):
            box.valueChanged.connect(self.changed)

    def for_task(self, labels: int) -> None:
        """Show the boxes for a task whose head has `labels` outputs by default (0: the head
        predicts the vocabulary, as masked-LM's, so there is no label box)."""
        with QSignalBlocker(self.labels):
            self.labels.setValue(max(labels, 1))
        self.labels.setVisible(labels > 0)
        self.labels_row.setVisible(labels > 0)

    def counted(self, config: ModelConfig, task: TaskConfig) -> ModelConfig:
        """`config` with the vocabularies the counts assume where none is known yet; for an
        encoder task, the whole model the task trains: the encoder with the task's head, for
        the vocabulary and labels in these boxes."""
        if task.encoder_head:
            encoder = dataclasses.replace(config, vocab_size=self.vocab.value())
            return task.model_for_counts(encoder, self.labels.value()) or encoder
        sizes = config.vocab_sizes()
        if "vocab_size" in sizes:
            return dataclasses.replace(config, vocab_size=sizes["vocab_size"] or VOCAB_DEFAULT)
        return dataclasses.replace(config, **{
            name: size or SIDE_VOCAB_DEFAULT for name, size in sizes.items()})


def vocabulary_text(task_type: type[TaskConfig], tokens: TokenizedCorpus | None) -> str:
    """Where a language model's or a sequence-to-sequence model's vocabulary comes from."""
    if not task_type.counts_vocabulary:
        return ("Reads numbers (the task's series), not tokens: a linear layer takes each value "
                "in and another gives the next one out; no vocabulary.")
    if not task_type.needs_corpus:
        return (f"Source and target vocabularies come from the task's data when training "
                f"starts; the counts assume {SIDE_VOCAB_DEFAULT} tokens each until then.")
    if tokens is None:
        return f"Vocabulary: {VOCAB_DEFAULT:,} assumed for the counts until a corpus is tokenized."
    return (f"Vocabulary: {tokens.tokenizer.vocab_size:,} {tokens.tokenizer.kind} tokens "
            "from the corpus.")
