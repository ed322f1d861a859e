"""The generation console's clamp: fix one recurrent unit's h_t, or one attention head's output,
to a value at every step, and see the text change. The boxes offer the model's own layers and
units or heads (they stop at the last); the core refuses any clamp outside them by name."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.generation import clamp_limits
from workbench.qt.widgets.boxes import row


class ClampBox(QWidget):
    """Clamp on or off, unit or head, layer, index and value."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.on = QCheckBox("Clamp")
        self.on.setObjectName("clamp_on")  # lesson 11 points at it by this name
        self.on.setToolTip("Fix one recurrent unit (its h_t) or one attention head's output to "
                           "a value at every step, and see the text change.")
        self.kind = QComboBox()
        self.kind.addItems(["unit", "head"])
        self.layer, self.index = QSpinBox(), QSpinBox()
        self.layer.setRange(0, 64)
        self.index.setRange(0, 100000)
        self.value = QDoubleSpinBox()
        self.value.setRange(-100, 100)
        self.value.setSingleStep(0.1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)  # as boxes.column, which held these two rows
        layout.addWidget(row(self.on, self.kind, QLabel("layer"), self.layer))
        layout.addWidget(row(QLabel("unit / head"), self.index, QLabel("value"), self.value))

    def fit(self, model_config: Any) -> None:
        """Offer the model's own layers and units (or heads): the boxes stop at the last."""
        limits = clamp_limits(model_config)
        self.on.setEnabled(limits is not None)
        if limits is None:
            self.on.setChecked(False)
            return
        kind, layers, size = limits
        self.kind.setCurrentText(kind)
        self.layer.setRange(0, max(layers - 1, 0))
        self.index.setRange(0, max(size - 1, 0))
        self.index.setToolTip(f"0 to {size - 1}: this model has {size} {kind}s a layer")

    def clamp(self) -> dict | None:
        """The clamp as the generation job takes it, or None when it is off."""
        if not self.on.isChecked():
            return None
        return {"layer": self.layer.value(), self.kind.currentText(): self.index.value(),
                "value": self.value.value()}
