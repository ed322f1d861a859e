"""A form generated from a config dataclass's `param(...)` metadata.

Booleans become check boxes, fields with `choices` combo boxes, ints spin boxes, floats spin
boxes (or a text box accepting 3e-4 style numbers when the step is tiny, as for learning
rates), strings text boxes. Advanced fields sit in a collapsible group. Tooltips come from the
metadata; `problems()` of the config is shown under the form as the user edits.

    form = ConfigForm(TrainingConfig)
    form.changed.connect(...)        # emits the new config object
    config = form.config()           # None while a text box holds no number
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.fields import field_values, form_fields

_INT_LIMIT = 2**31 - 1


class FormConfig(Protocol):
    """What a form's config is: a dataclass of `param(...)` fields that checks itself."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def problems(self) -> list[str]: ...


C = TypeVar("C", bound=FormConfig)


def _editor(field: dataclasses.Field, value: Any) -> QWidget:
    meta = field.metadata
    if meta["choices"] is not None:
        combo = QComboBox()
        combo.addItems([str(c) for c in meta["choices"]])
        return combo
    if isinstance(value, bool):
        return QCheckBox()
    if isinstance(value, int):
        box = QSpinBox()
        box.setRange(int(meta["min"] if meta["min"] is not None else -_INT_LIMIT),
                     int(min(meta["max"], _INT_LIMIT) if meta["max"] is not None else _INT_LIMIT))
        box.setSingleStep(int(meta["step"] or 1))
        box.setGroupSeparatorShown(field.name != "seed")  # 2,000 steps, but seed 1234
        return box
    if isinstance(value, float):
        step = meta["step"] or 0.1
        if step < 0.001 or (meta["min"] is not None and 0 < meta["min"] < 0.001):
            line = QLineEdit()
            validator = QDoubleValidator(meta["min"] or 0.0, meta["max"] or 1e12, 12)
            validator.setNotation(QDoubleValidator.Notation.ScientificNotation)
            line.setValidator(validator)
            return line
        double = QDoubleSpinBox()
        double.setDecimals(max(2, len(f"{step:g}".split(".")[-1]) if "." in f"{step:g}" else 2))
        double.setRange(meta["min"] if meta["min"] is not None else -1e12,
                        meta["max"] if meta["max"] is not None else 1e12)
        double.setSingleStep(step)
        return double
    return QLineEdit()


class ConfigForm(QWidget, Generic[C]):
    changed = Signal(object)  # the config object after each edit (None if a box is invalid)

    def __init__(self, config_type: type[C], config: C | None = None,
                 parent: QWidget | None = None, show_problems: bool = True) -> None:
        """show_problems=False: the owner shows `problems()` in its own words."""
        super().__init__(parent)
        self.config_type = config_type
        self.show_problems = show_problems
        self._base: C = config if config is not None else config_type()
        self.editors: dict[str, QWidget] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        basic = QFormLayout()
        self.advanced = QGroupBox("Advanced")
        self.advanced.setCheckable(True)
        self.advanced.setChecked(False)
        advanced_layout = QFormLayout(self.advanced)
        self._advanced_body = QWidget()
        advanced_form = QFormLayout(self._advanced_body)
        advanced_form.setContentsMargins(0, 0, 0, 0)
        advanced_layout.addRow(self._advanced_body)
        self.advanced.toggled.connect(self._show_advanced)
        self._show_advanced(False)
        base = field_values(self._base)
        for field in form_fields(config_type):
            editor = _editor(field, base[field.name])
            editor.setToolTip(field.metadata["tooltip"])
            editor.setObjectName(f"field-{field.name}")
            label = QLabel(field.metadata["label"])
            label.setToolTip(field.metadata["tooltip"])
            target = advanced_form if field.metadata["advanced"] else basic
            target.addRow(label, editor)
            self.editors[field.name] = editor
        layout.addLayout(basic)
        if advanced_form.rowCount():
            layout.addWidget(self.advanced)
        else:
            self.advanced.hide()
        self.problems_label = QLabel()
        self.problems_label.setWordWrap(True)
        self.problems_label.setStyleSheet("color: #b00020;")
        layout.addWidget(self.problems_label)
        self.set_config(self._base)
        for editor in self.editors.values():
            self._connect(editor)

    def _show_advanced(self, shown: bool) -> None:
        # a collapsed group box keeps its empty frame's height unless capped to its title
        self._advanced_body.setVisible(shown)
        self.advanced.setFlat(not shown)
        self.advanced.setMaximumHeight(16777215 if shown
                                       else self.advanced.fontMetrics().height() + 8)

    def _connect(self, editor: QWidget) -> None:
        if isinstance(editor, QComboBox):
            editor.currentIndexChanged.connect(self._on_edit)
        elif isinstance(editor, QCheckBox):
            editor.toggled.connect(self._on_edit)
        elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            editor.valueChanged.connect(self._on_edit)
        elif isinstance(editor, QLineEdit):
            editor.textChanged.connect(self._on_edit)

    def set_config(self, config: C) -> None:
        """Show `config` in the editors (without emitting `changed` for each box)."""
        self._base = config
        values = field_values(config)
        for name, editor in self.editors.items():
            value = values[name]
            blocker = QSignalBlocker(editor)
            if isinstance(editor, QComboBox):
                editor.setCurrentText(str(value))
            elif isinstance(editor, QCheckBox):
                editor.setChecked(bool(value))
            elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
                editor.setValue(value)
            elif isinstance(editor, QLineEdit):
                editor.setText(f"{value:g}" if isinstance(value, float) else str(value))
            blocker.unblock()
        self._show_problems(config)

    def config(self) -> C | None:
        """The config the editors describe, or None when a text box holds no valid number."""
        values: dict[str, Any] = {}
        base = field_values(self._base)
        for field in form_fields(self.config_type):
            editor, old = self.editors[field.name], base[field.name]
            if isinstance(editor, QComboBox):
                choice = field.metadata["choices"][editor.currentIndex()]
                values[field.name] = choice
            elif isinstance(editor, QCheckBox):
                values[field.name] = editor.isChecked()
            elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
                values[field.name] = editor.value()
            elif isinstance(editor, QLineEdit) and isinstance(old, float):
                try:
                    values[field.name] = float(editor.text())
                except ValueError:
                    return None
            elif isinstance(editor, QLineEdit):
                values[field.name] = editor.text()
        return dataclasses.replace(self._base, **values)

    def problems(self) -> list[str]:
        config = self.config()
        if config is None:
            return ["A number box is empty or not a number."]
        return config.problems()

    def _on_edit(self, *_: Any) -> None:
        config = self.config()
        self._show_problems(config)
        self.changed.emit(config)

    def _show_problems(self, config: C | None) -> None:
        problems = self.problems() if config is not None else ["A number box is not a number."]
        self.problems_label.setText(" ".join(problems))
        self.problems_label.setVisible(bool(problems) and self.show_problems)
