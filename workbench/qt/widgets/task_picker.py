"""What the model learns to do: a task selector and the chosen task's settings form.

Every registered task config (core.config.tasks) is offered; its form is generated from the
config's fields like the model forms. A task with a file of data gets a "Choose file…" button.
`changed(config)` is emitted with each valid config (None while the form is invalid).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.base import TaskConfig
from workbench.core.config.fields import form_fields
from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.dialog_folders import remember, start_folder
from workbench.qt.widgets.task_shape import TaskShapeFigure

CORPUS_NOTE = "Trains on the tokenized corpus (Corpus panel)."


class TaskPicker(QWidget):
    changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox(objectName="task-picker")
        self.combo.setToolTip("What the model learns to do: its data, its loss, its metrics.")
        self.forms: dict[str, ConfigForm[TaskConfig]] = {}
        self.stack = QStackedWidget()
        for name, config_type in TASK_CONFIGS.items():
            self.combo.addItem(config_type.title, name)
            form = ConfigForm(config_type)
            form.changed.connect(self._emit)
            self.forms[name] = form
            self.stack.addWidget(form)
        self.note = QLabel(CORPUS_NOTE, wordWrap=True)
        self.note.setStyleSheet("color: #555555;")
        self.browse = QPushButton("Choose file of pairs…")
        self.browse.clicked.connect(self.choose_file)
        # a language model may start from a GPT-2 folder, the encoder tasks from a BERT folder
        self.start_from = QPushButton("Fine-tune a model folder…", objectName="start-from")
        self.start_from.clicked.connect(self.choose_start_folder)
        row = QHBoxLayout()
        row.addWidget(QLabel("Task:"))
        row.addWidget(self.combo, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        self.shape = TaskShapeFigure()  # the task's shape in the course's taxonomy
        layout.addWidget(self.shape)
        layout.addWidget(self.stack)
        layout.addWidget(self.note)
        layout.addWidget(self.browse)
        layout.addWidget(self.start_from)
        self.combo.currentIndexChanged.connect(self._on_pick)
        self._on_pick(self.combo.currentIndex(), emit=False)

    @property
    def name(self) -> str:
        return self.combo.currentData() or DEFAULT_TASK

    def config(self) -> TaskConfig | None:
        config = self.forms[self.name].config()
        return None if config is None or config.problems() else config

    def set_config(self, config: TaskConfig | None) -> None:
        """Show `config` (a recipe's or a run's task) without emitting for each box."""
        config = config if config is not None else TASK_CONFIGS[DEFAULT_TASK]()
        self.forms[config.name].set_config(config)
        self.combo.setCurrentIndex(self.combo.findData(config.name))

    def _on_pick(self, index: int, emit: bool = True) -> None:
        self.stack.setCurrentIndex(index)
        form = self.forms[self.name]
        for i in range(self.stack.count()):  # the stack takes the height of the shown form
            self.stack.widget(i).setVisible(i == index)
        self.stack.setFixedHeight(form.sizeHint().height())
        config_type = form.config_type
        self.shape.show_shape(config_type.io_shape)
        self.note.setVisible(config_type.needs_corpus)
        names = {f.name for f in form_fields(config_type)}
        self.browse.setVisible("path" in names)
        self.start_from.setVisible("start_from" in names)
        family, on = ("BERT", "the task's data") if config_type.encoder_head else \
            ("GPT-2", "the corpus")
        self.start_from.setToolTip(f"Choose a {family} model folder (config.json, "
                                   f"model.safetensors, tokenizer.json) to fine-tune on {on}.")
        self.browse.setText("Choose CSV file…" if self.name == "forecast"
                            else "Choose file of pairs…")
        if emit:
            self._emit()

    def _emit(self, *_: Any) -> None:
        self.stack.setFixedHeight(self.forms[self.name].sizeHint().height())
        self.changed.emit(self.config())

    def choose_file(self) -> None:
        if self.name == "forecast":
            path, _ = QFileDialog.getOpenFileName(self, "CSV file of the series",
                                                  start_folder("pairs"),
                                                  "CSV files (*.csv *.txt);;All files (*)")
        else:
            path, _ = QFileDialog.getOpenFileName(self, "File of pairs", start_folder("pairs"),
                                                  "Tab-separated pairs (*.tsv *.txt);;"
                                                  "All files (*)")
        if remember("pairs", path):
            self.use_file(path)

    def choose_start_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Model folder to fine-tune",
                                                start_folder("model folder"))
        if remember("model folder", path):
            self.use_value("start_from", path)

    def use_value(self, name: str, value: str) -> None:
        form = self.forms[self.name]
        config = form.config()
        if config is not None:
            form.set_config(dataclasses.replace(config, **{name: value}))
            self._emit()

    def use_file(self, path: str) -> None:
        form = self.forms[self.name]
        config = form.config()
        if config is None:
            return
        changes = {"path": path}
        if any(f.name == "data" for f in dataclasses.fields(config)):
            changes["data"] = "file"
        form.set_config(dataclasses.replace(config, **changes))
        self._emit()
