"""Worked examples (toy mode): the course's small computations with numbers the student types.

Each example starts with the course's own numbers (softmax([1, 3, 2]), the embedding lookup
M·[0, 0, 1], LayerNorm of [1, 2, 3, 4], positions at d = 4, the "Hello I love you" attention
matrix, masked attention, a word2vec window) and says whether the result reproduces the one the
course prints, at its precision. Edit any input and the computation follows; a bad input is
named in red and the last good result stays.
"""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.core.worked.examples import EXAMPLES, ToyExample, compute, matches_printed
from workbench.core.worked.parse import InputError
from workbench.core.worked.records import matrix
from workbench.qt.panel import Panel
from workbench.qt.widgets.worked_figure import WorkedFigure
from workbench.qt.widgets.worked_view import WorkedView

EDIT_DELAY_MS = 250  # recompute once typing pauses


class WorkedExamplesPanel(Panel):
    name: ClassVar[str] = "worked"
    title: ClassVar[str] = "Worked examples"
    area: ClassVar[str] = "right"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.picker = QComboBox()
        self.picker.setObjectName("worked-picker")
        for item in EXAMPLES:
            self.picker.addItem(item.title, item.key)
        self.picker.currentIndexChanged.connect(self._build_inputs)
        self.explain = QLabel()
        self.explain.setWordWrap(True)
        self.inputs_box = QWidget()
        self.form = QFormLayout(self.inputs_box)
        self.editors: dict[str, QWidget] = {}
        self.reset = QPushButton("Course's numbers")
        self.reset.setToolTip("Put back the example's inputs as the course prints them.")
        self.reset.clicked.connect(self._build_inputs)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020;")
        self.verdict = QLabel()
        self.verdict.setObjectName("worked-verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.view = WorkedView("Pick an example.")
        self.view.setObjectName("worked-view")
        self.timer = QTimer(self, singleShot=True, interval=EDIT_DELAY_MS)
        self.timer.timeout.connect(self.recompute)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.picker)
        left_layout.addWidget(self.explain)
        left_layout.addWidget(self.inputs_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reset)
        buttons.addStretch(1)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.problem)
        left_layout.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.verdict)
        right_layout.addWidget(self.view, 1)
        self.figure = WorkedFigure()  # the course's figure from the same numbers, when it has one
        right_layout.addWidget(self.figure, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._build_inputs()
        controller.lesson_action.connect(self._on_lesson)

    def example(self) -> ToyExample:
        return EXAMPLES[max(self.picker.currentIndex(), 0)]

    def choose(self, key: str) -> None:
        """Show the example `key` (a lesson step can ask for one)."""
        index = self.picker.findData(key)
        if index < 0:
            raise KeyError(key)
        self.picker.setCurrentIndex(index)

    def _on_lesson(self, action: str, value) -> None:
        """A lesson step shows an example, or types inputs into the one shown."""
        if action == "example":  # with its own inputs, whatever an earlier step typed
            if self.example().key == str(value):
                self._build_inputs()
            else:
                self.choose(str(value))
        elif action == "inputs":
            for key, text in dict(value).items():
                if key in self.editors:
                    self.set_text(key, str(text))

    # --- inputs -------------------------------------------------------------------------------

    def _build_inputs(self) -> None:
        item = self.example()
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors.clear()
        self.explain.setText(item.explain)
        for spec in item.inputs:
            if spec.kind == "flag":
                editor = QCheckBox()
                editor.setChecked(spec.default == "yes")
                editor.toggled.connect(self.timer.start)
            elif spec.kind in ("matrix",) or "\n" in spec.default:
                editor = QPlainTextEdit(spec.default)
                editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # one row a line
                lines = spec.default.count("\n") + 1
                editor.setFixedHeight(editor.fontMetrics().lineSpacing() * (lines + 1) + 12)
                # wide enough for its longest line (a sentence, a matrix row) without scrolling
                longest = max(spec.default.splitlines(), key=len)
                editor.setMinimumWidth(editor.fontMetrics().horizontalAdvance(longest) + 30)
                editor.textChanged.connect(self.timer.start)
            else:
                editor = QLineEdit(spec.default)
                editor.textChanged.connect(self.timer.start)
            editor.setObjectName(f"worked-input-{spec.key}")
            self.form.addRow(spec.label, editor)
            self.editors[spec.key] = editor
        self.recompute()

    def texts(self) -> dict[str, str]:
        out = {}
        for key, editor in self.editors.items():
            if isinstance(editor, QCheckBox):
                out[key] = "yes" if editor.isChecked() else "no"
            elif isinstance(editor, QPlainTextEdit):
                out[key] = editor.toPlainText()
            else:
                out[key] = editor.text()
        return out

    def set_text(self, key: str, text: str) -> None:
        editor = self.editors[key]
        if isinstance(editor, QCheckBox):  # a flag: "yes" / "no" as texts() reads it
            editor.setChecked(text.strip().lower() in ("yes", "true", "1", "on"))
        elif isinstance(editor, QPlainTextEdit):
            editor.setPlainText(text)
        elif isinstance(editor, QLineEdit):
            editor.setText(text)
        self.recompute()

    # --- computing ----------------------------------------------------------------------------

    def recompute(self) -> None:
        item = self.example()
        try:
            result = compute(item, self.texts())
        except (InputError, ValueError) as exc:
            self.problem.setText(str(exc))
            return
        self.problem.clear()
        self.view.show_computation(result)
        self.figure.show_figure(result.figure)
        self.verdict.setText(self._verdict(item, result))

    @staticmethod
    def _verdict(item: ToyExample, result) -> str:
        source = html.escape(item.source)
        if item.printed is None:
            return f"<span style='color:#555'>From: {source}</span>"
        printed = html.escape(matrix(item.printed, item.decimals).replace("\n", "; "))
        if matches_printed(item, result):
            return (f"<b style='color:#1b7f3b'>✓ Reproduces the printed result</b> {printed} "
                    f"({item.decimals} decimals).<br><span style='color:#555'>{source}</span>")
        return (f"<b style='color:#9a6700'>Differs from the printed example</b> {printed}: "
                f"the inputs were changed.<br><span style='color:#555'>{source}</span>")
