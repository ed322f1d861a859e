"""The Architecture panel while a run starts from a model folder (fine-tuning): a language
model from a GPT-2 folder, the masked LM, the classifier or the tagger from a BERT folder's
encoder. The folder's own model (an encoder task's: its encoder) is what trains, so the panel
shows it, with its sizes and vocabulary, and its form is locked with a note saying why.
Clearing 'Start from' unlocks it.

The folder's config.json is read by a query (a network folder can be slow), never on the GUI
thread; a folder that is not a model's is reported and the form stays as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QWidget

from workbench.core.config.base import ModelConfig
from workbench.core.events import JobStopped, failure_text


class StartFromModel(QObject):
    """changed(config or None): the folder's model config once read; None when cleared."""

    changed = Signal(object)

    def __init__(self, controller: Any, locked: list[QWidget],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.locked = locked  # the controls that design a new model
        self.path = ""
        self.task = ""  # the folder's model depends on the task (an encoder task: its encoder)
        self.config: ModelConfig | None = None
        self.note = QLabel(wordWrap=True)
        self.note.setObjectName("start-from-note")
        self.note.setStyleSheet("color: #8a4b00;")
        self.note.hide()

    def follow(self, path: str, task: str) -> None:
        """The form of `task` now says 'Start from' `path` ('' = a new model)."""
        path = path.strip()
        if (path, task) == (self.path, self.task):
            return
        self.path, self.task = path, task
        if not path:
            self._show(None)
            return
        spec = self.controller.backend.models.folder_config_job(path, task)
        self.controller.run_query(
            spec, on_result=lambda config, p=path, t=task: self._read(p, t, config),
            on_error=self._failed, caller="start-from")

    def _read(self, path: str, task: str, config: ModelConfig) -> None:
        if (path, task) == (self.path, self.task):  # not a choice the user has since replaced
            self._show(config)

    def _failed(self, outcome: JobStopped) -> None:
        self.note.setText(f"'Start from' cannot be used: {failure_text(outcome)}")
        self.note.show()
        self.config = None
        self.changed.emit(None)

    def _show(self, config: ModelConfig | None) -> None:
        self.config = config
        self.note.setVisible(config is not None)
        for widget in self.locked:
            widget.setEnabled(config is None)
        if config is not None:
            name = Path(self.path).name
            self.note.setText(
                f"Fine-tuning {name}: its own model trains (the sizes below are read from its "
                f"config.json, {getattr(config, 'vocab_size', 0):,} tokens of its own "
                "tokenizer). Clear 'Start from' to design a new model.")
        self.changed.emit(config)
