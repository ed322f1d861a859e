"""A searchable, read-only view of the corpus text that shows a bounded window of it.

A text editor widget slows down badly with tens of megabytes in it, so the view holds at most
`WINDOW_CHARS` characters of the corpus at a time. Find searches the whole corpus text (case
insensitive) and moves the window to the hit, so every occurrence can be reached. The search
runs a slice at a time between events (core/corpus/text_search.py), so a miss in 100 MB does
not freeze the window; the status line shows how far it has got.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.corpus.text_search import search_steps

WINDOW_CHARS = 200_000
SEARCH_SLICE_S = 0.025  # searched per turn of the event loop; the rest waits for the next


def _utf16_len(text: str) -> int:
    """Qt counts positions in UTF-16 code units; characters outside the BMP take two."""
    return len(text.encode("utf-16-le")) // 2


class TextPreview(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.start = 0  # where the shown window begins in `self.text`
        self.doc_starts: list[int] = []
        self._search = None  # (generator, query) of a search still going on
        self._search_timer = QTimer(self, singleShot=True, interval=0)
        self._search_timer.timeout.connect(self._continue_search)
        self.documents = QComboBox()
        self.documents.setToolTip("Jump to the start of a document")
        self.documents.activated.connect(self._jump_to_document)
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find in the corpus (Enter = next)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.returnPressed.connect(self.find_next)
        previous = QPushButton("Previous")
        previous.clicked.connect(self.find_previous)
        following = QPushButton("Next")
        following.clicked.connect(self.find_next)
        row = QHBoxLayout()
        row.addWidget(self.documents, 1)
        row.addWidget(self.find_box, 2)
        row.addWidget(previous)
        row.addWidget(following)
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.status = QLabel("")
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)

    def set_corpus(self, text: str, documents: list[tuple[str, int]]) -> None:
        """Show `text`; `documents` are (name, start offset) pairs for the jump list."""
        self.text = text
        self._search = None
        self.documents.clear()
        self.doc_starts = [start for _, start in documents]
        for name, _ in documents:
            self.documents.addItem(name)
        self.show_window(0)

    def show_window(self, position: int) -> None:
        """Show the window that holds `position`, starting at a line start before it."""
        start = max(0, position - WINDOW_CHARS // 4)
        if start:
            line_start = self.text.rfind("\n", max(0, start - 2000), start)
            start = line_start + 1 if line_start >= 0 else start
        self.start = start
        end = min(len(self.text), start + WINDOW_CHARS)
        self.view.setPlainText(self.text[start:end])
        shown = "all" if (start, end) == (0, len(self.text)) else f"{start:,}-{end:,} of"
        self.status.setText(f"Showing characters {shown} {len(self.text):,}.")

    def _in_window(self, position: int, length: int) -> bool:
        return self.start <= position and position + length <= self.start + WINDOW_CHARS

    def _select(self, position: int, length: int) -> None:
        if not self._in_window(position, length):
            self.show_window(position)
        window = self.view.toPlainText()
        rel = position - self.start
        begin = rel if window.isascii() else _utf16_len(window[:rel])
        size = _utf16_len(self.text[position:position + length])
        cursor = self.view.textCursor()
        cursor.setPosition(begin)
        cursor.setPosition(begin + size, QTextCursor.MoveMode.KeepAnchor)
        self.view.setTextCursor(cursor)
        self.view.centerCursor()

    def _cursor_offset(self) -> tuple[int, int]:
        """(start, end) of the current selection as offsets into the whole text."""
        cursor = self.view.textCursor()
        window = self.view.toPlainText()
        if window.isascii():
            return self.start + cursor.selectionStart(), self.start + cursor.selectionEnd()
        units = window.encode("utf-16-le")

        def to_chars(u):
            return len(units[:2 * u].decode("utf-16-le", errors="ignore"))
        return (self.start + to_chars(cursor.selectionStart()),
                self.start + to_chars(cursor.selectionEnd()))

    def find_next(self) -> bool:
        return self._find(backward=False)

    def find_previous(self) -> bool:
        return self._find(backward=True)

    def _find(self, backward: bool) -> bool:
        """Start a search from the selection; True if it found a match at once, False if it
        found none or goes on in the background (the status line says which)."""
        query = self.find_box.text()
        if not query or not self.text:
            return False
        begin, end = self._cursor_offset()
        self._search = (search_steps(self.text, query, begin, end, backward), query)
        return self._continue_search()

    def _continue_search(self) -> bool:
        if self._search is None:
            return False
        steps, query = self._search
        deadline = time.monotonic() + SEARCH_SLICE_S
        try:
            while True:
                done = next(steps)
                if time.monotonic() > deadline:
                    self.status.setText(f"Searching for '{query}'… {done:.0%}")
                    self._search_timer.start()
                    return False
        except StopIteration as finished:
            hit = finished.value
        self._search = None
        if hit is None:
            self.status.setText(f"No match for '{query}' in the corpus.")
            return False
        self._select(hit.start, hit.end - hit.start)
        where = f"at character {hit.start:,}" + (" (wrapped around)" if hit.wrapped else "")
        self.status.setText(f"'{query}' found {where}.")
        return True

    def _jump_to_document(self, index: int) -> None:
        if 0 <= index < len(self.doc_starts):
            self._select(self.doc_starts[index], 0)
