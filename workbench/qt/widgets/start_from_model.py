"""The Architecture panel while a language model starts from a model folder (fine-tuning):
the folder's own model is what trains, so the panel shows it, with its sizes and vocabulary,
and its form is locked with a note saying why. Clearing 'Start from' unlocks it.

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
        self.config: ModelConfig | None = None
        self.note = QLabel(wordWrap=True)
        self.note.setObjectName("start-from-note")
        self.note.setStyleSheet("color: #8a4b00;")
        self.note.hide()

    def follow(self, path: str) -> None:
        """The task form's 'Start from' is now `path` ('' = a new model)."""
        path = path.strip()
        if path == self.path:
            return
        self.path = path
        if not path:
            self._show(None)
            return
        spec = self.controller.backend.models.folder_config_job(path)
        self.controller.run_query(spec, on_result=lambda config, p=path: self._read(p, config),
                                  on_error=self._failed, caller="start-from")

    def _read(self, path: str, config: ModelConfig) -> None:
        if path == self.path:  # not a folder the user has since replaced
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
