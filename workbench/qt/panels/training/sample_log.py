"""The sample log: text sampled from the model every N steps, newest at the bottom, so the
user watches it go from noise to words."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from workbench.core.events import SampleGenerated

MAX_BLOCKS = 5000  # lines kept; older samples scroll away so a long run stays light


class SampleLog(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(MAX_BLOCKS)
        self.setFont(QFont("monospace"))
        self.setPlaceholderText("Samples of the model's text appear here during training.")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

    def show_samples(self, samples: list[SampleGenerated]) -> None:
        self.clear()
        for sample in samples:
            self.add(sample)

    def add(self, sample: SampleGenerated) -> None:
        self.appendPlainText(f"── step {sample.step} ──")
        self.appendPlainText(sample.text.rstrip("\n"))
        self.moveCursor(QTextCursor.MoveOperation.End)
