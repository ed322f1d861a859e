"""A text view of a prompt and the tokens generated after it; each token can be hovered and
clicked.

Each token's background is orange in proportion to how unlikely it was (1 − p), so surprising
choices stand out. Hovering a token emits `hovered(index)`, clicking it `clicked(index)`.

New tokens are appended at the end of the document (`append_tokens`), never the whole stream
laid out again: setting the whole text as HTML every 33 ms cost 1.4 ms at the first tokens and
12 ms at 5,000, so that at 5,000 tokens the console's GUI thread spent more time redrawing than
the model spent writing. Each line is its own paragraph, so an append lays out only the last.
The view knows where each token starts and finds the token under the mouse from that: a link
per token (a character format of its own, made in Python for each token) cost 25 µs a token
on the GUI thread, while the ~20 shades of orange here are made once.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.core.events import TokenGenerated

FONT_FAMILIES = ["monospace"]
LARGE = 1  # CSS "font-size: large": one step above the view's font, so it grows with the zoom
PROMPT_COLOUR = QColor("#777777")
TOKEN_COLOUR = QColor("#000000")
UNLIKELY = (230, 159, 0)  # orange, its alpha 200 × (1 − p)
SHADES = 20  # steps of that alpha: a difference of 0.05 in p is all the eye tells apart


def describe(token: TokenGenerated) -> str:
    """Probability, entropy, rank and the top alternatives of a token, as rich text."""
    alternatives = ", ".join(f"{html.escape(repr(t), quote=False)} {p:.3f}"
                             for t, p in token.alternatives)
    return (f"<b>{html.escape(repr(token.text), quote=False)}</b> p = {token.probability:.3f}, "
            f"entropy {token.entropy:.2f} nats, rank {token.rank + 1}<br>"
            f"top: {alternatives}")


def text_format(colour: QColor, background: QColor | None = None) -> QTextCharFormat:
    """Monospace, a size above the view's font, in `colour`."""
    fmt = QTextCharFormat()
    fmt.setFontFamilies(FONT_FAMILIES)
    fmt.setProperty(QTextFormat.Property.FontSizeAdjustment, LARGE)
    fmt.setForeground(colour)
    if background is not None:
        fmt.setBackground(background)
    return fmt


def shown_text(text: str) -> str:
    """What the view shows for a token's text: a mark for a token without text; a carriage
    return as the line end Qt makes of it (so the view's positions match the text's)."""
    if not text:
        return "⏎"
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def document_length(text: str) -> int:
    """Positions `text` takes in a QTextDocument: UTF-16 code units."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


class TokenStreamView(QTextBrowser):
    hovered = Signal(int)
    clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.document().setUndoRedoEnabled(False)  # appends would pile up in the undo stack
        self.viewport().setMouseTracking(True)
        self._prompt_format = text_format(PROMPT_COLOUR)
        self._plain_format = text_format(TOKEN_COLOUR)
        self._shades = [text_format(TOKEN_COLOUR, QColor(*UNLIKELY, round(200 * i / SHADES)))
                        for i in range(SHADES + 1)]
        self.token_starts: list[int] = []  # the document position where each token starts
        self._end = 0  # where the next token will start
        self._under_mouse = -1
        self._pressed = -1
        # the view stays at the end while it is there, however the text or the view grows
        self._following = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._note_following)
        bar.rangeChanged.connect(self._keep_end)

    # --- content ------------------------------------------------------------------------------

    def start_stream(self, prompt: str) -> None:
        """Show `prompt` alone, ready for tokens to be appended."""
        self.clear()
        self.token_starts, self._under_mouse, self._following = [], -1, True
        cursor = QTextCursor(self.document())
        cursor.insertText(prompt, self._prompt_format)
        self._end = cursor.position()

    def append_tokens(self, tokens: Sequence[Any]) -> None:
        """Add tokens (each with `text` and `probability`) after those shown. The view follows
        the end only while it is scrolled to the end: a reader who scrolled up stays put."""
        if not tokens:
            return
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()  # one layout for the whole batch
        run, shade = [], -1  # neighbours of one shade go in with one call
        for token in tokens:
            text = shown_text(token.text)
            self.token_starts.append(self._end)
            self._end += document_length(text)
            level = round(SHADES * (1.0 - token.probability))
            if level != shade and run:
                cursor.insertText("".join(run), self._shades[shade])
                run = []
            run.append(text)
            shade = level
        cursor.insertText("".join(run), self._shades[shade])  # a line end: a new paragraph
        cursor.endEditBlock()  # the scroll bar's range grows: `_keep_end`

    def show_stream(self, prompt: str, tokens: Sequence[Any]) -> None:
        """The prompt and all of `tokens`, from scratch."""
        self.start_stream(prompt)
        self.append_tokens(tokens)

    def show_text(self, prompt: str, text: str) -> None:
        """A finished generation from the history (its tokens not told apart)."""
        self.start_stream(prompt)
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text, self._plain_format)

    def _note_following(self, value: int) -> None:
        self._following = value >= self.verticalScrollBar().maximum() - 2

    def _keep_end(self, _minimum: int, maximum: int) -> None:
        if self._following:
            self.verticalScrollBar().setValue(maximum)

    # --- the token under the mouse -------------------------------------------------------------

    def token_at(self, point) -> int:
        """The index of the token drawn at `point` (viewport coordinates), or -1."""
        if not self.token_starts:
            return -1
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        position = self.document().documentLayout().hitTest(
            QPointF(point) + offset, Qt.HitTestAccuracy.ExactHit)
        if position < self.token_starts[0] or position >= self._end:
            return -1  # off the text, or on the prompt
        return bisect.bisect_right(self.token_starts, position) - 1

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().mouseMoveEvent(event)
        index = self.token_at(event.position())
        if index >= 0:
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.viewport().unsetCursor()
        if index != self._under_mouse:
            self._under_mouse = index
            if index >= 0:
                self.hovered.emit(index)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().mousePressEvent(event)
        self._pressed = self.token_at(event.position())

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().mouseReleaseEvent(event)
        index = self.token_at(event.position())
        # a click, not the end of a selection drawn with the mouse
        if event.button() == Qt.MouseButton.LeftButton and index >= 0 and \
                index == self._pressed and not self.textCursor().hasSelection():
            self.clicked.emit(index)
        self._pressed = -1
