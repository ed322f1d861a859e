"""Matched size, in the Architecture panel: propose the width at which the model shown has as
many parameters as another architecture (a fair comparison), and apply it.

The box asks its panel for the two configs as counted (`configs(target_arch)`: the model shown
and the target, or None while either is invalid) and hands an accepted proposal back
(`applied(proposal)`); the search runs as a query on the controller's query thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from workbench.core.config.base import ModelConfig
from workbench.core.config.models import MODEL_CONFIGS
from workbench.core.config.summary import MatchedSize
from workbench.core.events import JobStopped, failure_text

if TYPE_CHECKING:
    from workbench.qt.controller import WorkbenchController


class MatchedSizeBox(QGroupBox):
    applied = Signal(object)  # the proposal to apply: .arch, .fields, .width

    def __init__(self, controller: WorkbenchController,
                 configs: Callable[[str], tuple[ModelConfig, ModelConfig] | None]) -> None:
        super().__init__("Matched size (fair comparisons)")
        self.controller = controller
        self.configs = configs
        self.proposal: MatchedSize | None = None
        self.target = QComboBox()
        self.target.setObjectName("match-target")
        self.button = QPushButton("Propose")
        self.button.clicked.connect(self.propose)
        self.result = QLabel("", wordWrap=True)
        self.result.setMinimumHeight(2 * self.fontMetrics().lineSpacing() + 6)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Match the parameter count of:"))
        row = QHBoxLayout()
        row.addWidget(self.target, 1)
        row.addWidget(self.button)
        layout.addLayout(row)
        layout.addWidget(self.result)
        layout.addWidget(self.apply_button, 0, Qt.AlignmentFlag.AlignRight)

    def propose(self) -> None:
        pair = self.configs(self.target.currentData())
        if pair is None:
            self.result.setText("Both models need valid settings first.")
            return
        spec = self.controller.backend.models.matched_size_job(*pair)
        self.result.setText("Searching…")
        self.controller.run_query(spec, on_result=self._on_matched, on_error=self._on_failed,
                                  caller="architecture:matched-size")

    def _on_failed(self, outcome: JobStopped) -> None:
        self.result.setText(f"No proposal: {failure_text(outcome)}")

    def _on_matched(self, proposal: MatchedSize) -> None:
        self.proposal = proposal
        labels = {f.name: f.metadata.get("label", f.name)
                  for f in dataclasses.fields(MODEL_CONFIGS[proposal.arch])}
        label = " = ".join(labels[f].lower() for f in proposal.fields)
        self.result.setText(
            f"→ {label} <b>{proposal.width}</b>: {proposal.params:,} parameters vs "
            f"{proposal.target_params:,} ({proposal.relative_error:+.1%})")
        self.apply_button.setEnabled(True)

    def apply(self) -> None:
        if self.proposal is not None:
            self.applied.emit(self.proposal)
            self.apply_button.setEnabled(False)
