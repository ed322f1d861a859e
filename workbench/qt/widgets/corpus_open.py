"""Asking for a corpus file or folder: the File menu and the Corpus panel's Open buttons both
ask here, and both then open through `WorkbenchController.open_corpus`, which applies the
Corpus panel's filter and encoding (`corpus_options`). One way in, so a corpus loads the same
whichever button or menu item the user reached for.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QWidget

from workbench.qt.widgets.dialog_folders import remember, start_folder

CORPUS_FILTER = "Text corpora (*.txt *.md *.gz *.bz2);;All files (*)"


def ask_corpus_file(parent: QWidget) -> str:
    """The corpus file the user picks ('' if cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Open corpus", start_folder("corpus"),
                                          CORPUS_FILTER)
    return remember("corpus", path)


def ask_corpus_folder(parent: QWidget) -> str:
    """The corpus folder the user picks ('' if cancelled)."""
    return remember("corpus", QFileDialog.getExistingDirectory(parent, "Open corpus folder",
                                                               start_folder("corpus")))
