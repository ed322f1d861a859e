"""Where a token of a `TokenStreamView` is drawn, for tests that point the mouse at it."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtGui import QTextCursor


def character_point(view, position: int) -> QPoint:
    """The middle of the character at document `position`, in viewport coordinates."""
    cursor = QTextCursor(view.document())
    cursor.setPosition(position)
    left = view.cursorRect(cursor)
    cursor.setPosition(position + 1)
    right = view.cursorRect(cursor)
    return QPoint((left.center().x() + right.center().x()) // 2, left.center().y())


def token_point(view, index: int) -> QPoint:
    return character_point(view, view.token_starts[index])
