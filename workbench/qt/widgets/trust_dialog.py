"""The question asked before opening a file that can run code (a gensim native file is a
Python pickle). Refusing is the default button, so Enter or Escape opens nothing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

TRUST_TEXT = ("{name} is a gensim native file: a Python pickle. Opening it runs whatever code "
              "it holds, with your permissions, as a program would.")
TRUST_DETAIL = ("Open it only if you made it yourself or fully trust where it came from. The "
                "safe way: save the vectors from gensim as word2vec text or binary "
                "(model.wv.save_word2vec_format) and import that file instead.")
TRUST_BUTTON = "I trust this file: open it (it can run code)"


def trust_box(parent: QWidget, path: str) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Warning, "Open a file that can run code?",
                      TRUST_TEXT.format(name=Path(path).name), parent=parent)
    box.setInformativeText(TRUST_DETAIL)
    box.addButton(TRUST_BUTTON, QMessageBox.ButtonRole.AcceptRole)
    refuse = box.addButton("Do not open", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(refuse)
    box.setEscapeButton(refuse)
    return box


def ask_trust(parent: QWidget, path: str) -> bool:
    """True only when the user chose the trust button."""
    box = trust_box(parent, path)
    box.exec()
    return box.clickedButton() is not None and box.clickedButton().text() == TRUST_BUTTON
