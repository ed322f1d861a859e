"""Which model a console works with: the session's latest snapshot, or a checkpoint opened.

A label naming the model and an "Open checkpoint…" button. It follows the session's snapshots
(`controller.snapshot_changed`) until the user opens a checkpoint, which then stays. `changed`
is emitted with each new snapshot; `describe(snapshot)` words the label (None: no model yet).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from workbench.qt.widgets.checkpoint_open import ask_checkpoint_path, open_checkpoint

NO_MODEL = "No model yet: train one or open a checkpoint."


def no_model_text(controller) -> str:
    """Why there is no model to look at yet (following a run, its checkpoint takes seconds to
    load, or has not been written yet)."""
    if controller.followers:
        return "No model yet: waiting for a checkpoint of the followed run."
    return "No model yet: train one, or open a checkpoint."


def model_label(snapshot: Any) -> str:
    return NO_MODEL if snapshot is None else f"Model: {snapshot.label}"


class SnapshotSource(QWidget):
    changed = Signal(object)

    def __init__(self, controller, describe: Callable[[Any], str] = model_label,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.describe = describe
        self.snapshot: Any = controller.snapshot
        self.loaded = False  # an opened checkpoint replaces the session's snapshots
        self.label = QLabel(wordWrap=True)
        self.open_button = QPushButton("Open checkpoint…")
        self.open_button.clicked.connect(self.ask_checkpoint)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.open_button)
        controller.snapshot_changed.connect(self._on_snapshot)
        self.label.setText(describe(self.snapshot))

    @Slot(object)
    def _on_snapshot(self, snapshot: Any) -> None:
        if not self.loaded:
            self._use(snapshot)

    def ask_checkpoint(self) -> None:
        path = ask_checkpoint_path(self)
        if path:
            self.open_checkpoint(path)

    def open_checkpoint(self, path: str) -> bool:
        return open_checkpoint(self.controller, path, self.use_snapshot)

    def use_snapshot(self, snapshot: Any) -> None:
        """Work with `snapshot` (an opened checkpoint) from now on."""
        self.loaded = True
        self._use(snapshot)

    def follow_session(self, snapshot: Any) -> None:
        """Back to the session's snapshots, starting with `snapshot` (a lesson's sample model
        replaces a checkpoint the student opened)."""
        self.loaded = False
        self._use(snapshot)

    def refresh(self) -> None:
        """Word the label again (what "no model" means changed: a run is now followed)."""
        self.label.setText(self.describe(self.snapshot))

    def _use(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        self.label.setText(self.describe(snapshot))
        self.changed.emit(snapshot)
