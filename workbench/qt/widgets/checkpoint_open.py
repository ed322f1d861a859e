"""Open a saved checkpoint (a file or a run folder's best one) as a snapshot, off the GUI thread.

The inspectors' probe bar and the generation console both offer "Open checkpoint…"; this is
the one way they do it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QFileDialog, QWidget

from workbench.core.jobs import user_message
from workbench.qt.widgets.dialog_folders import remember, start_folder

# a run's checkpoint, or a file of a Hugging Face model folder (which opens the folder)
CHECKPOINT_FILTER = ("Checkpoints and model folders (*.safetensors *.json *.bin);;"
                     "All files (*)")


def ask_checkpoint_path(parent: QWidget) -> str:
    """The checkpoint file the user picks ('' if cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Open checkpoint", start_folder("checkpoint"),
                                          CHECKPOINT_FILTER)
    return remember("checkpoint", path)


def open_checkpoint(controller, path: str, on_result: Callable[[Any], None]) -> bool:
    """Load `path` as a snapshot on the query runner; a bad path becomes a message."""
    try:
        spec = controller.backend.inspection.load_checkpoint_job(path)
    except Exception as exc:  # noqa: BLE001 - a bad path is reported, never raised
        controller.report_error(user_message(exc))
        return False
    return controller.run_query(spec, on_result=on_result)
