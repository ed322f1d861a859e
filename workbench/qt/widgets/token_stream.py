"""A text view of a prompt and the tokens generated after it, one link per token.

Each token's background is orange in proportion to how unlikely it was (1 − p), so surprising
choices stand out. Hovering a token emits `hovered(index)`, clicking it `clicked(index)`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.core.events import TokenGenerated

FONT = "font-family: monospace; font-size: large"  # a keyword: it grows with the zoom


def escape(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def describe(token: TokenGenerated) -> str:
    """Probability, entropy, rank and the top alternatives of a token, as rich text."""
    alternatives = ", ".join(f"{html.escape(repr(t), quote=False)} {p:.3f}"
                             for t, p in token.alternatives)
    return (f"<b>{html.escape(repr(token.text), quote=False)}</b> p = {token.probability:.3f}, "
            f"entropy {token.entropy:.2f} nats, rank {token.rank + 1}<br>"
            f"top: {alternatives}")


def stream_html(prompt: str, tokens: Sequence[TokenGenerated]) -> str:
    parts = [f'<span style="color:#777777">{escape(prompt)}</span>']
    for i, token in enumerate(tokens):
        alpha = int(200 * (1.0 - token.probability))  # the less likely, the more orange
        parts.append(f'<a href="{i}" style="color:#000000; text-decoration:none; '
                     f'background-color:rgba(230,159,0,{alpha})">'
                     f'{escape(token.text) or "⏎"}</a>')
    return f"<div style='{FONT}'>" + "".join(parts) + "</div>"


class TokenStreamView(QTextBrowser):
    hovered = Signal(int)
    clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.highlighted.connect(self._on_highlighted)
        self.anchorClicked.connect(self._on_anchor)

    def show_stream(self, prompt: str, tokens: Sequence[TokenGenerated]) -> None:
        self.setHtml(stream_html(prompt, tokens))
        self.moveCursor(QTextCursor.MoveOperation.End)

    def show_text(self, prompt: str, text: str) -> None:
        """A finished generation from the history (plain text, no token links)."""
        self.setHtml(f"<div style='{FONT}'><span style=\"color:#777777\">{escape(prompt)}"
                     f"</span>{escape(text)}</div>")

    def _on_highlighted(self, url: QUrl) -> None:
        if url.toString().isdigit():
            self.hovered.emit(int(url.toString()))

    def _on_anchor(self, url: QUrl) -> None:
        if url.toString().isdigit():
            self.clicked.emit(int(url.toString()))
