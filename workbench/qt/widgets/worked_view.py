"""Shows a worked computation: one row per step with what it is, the formula in the card's
symbols, and the numbers put in (a `core.worked.records.WorkedComputation`)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.core.worked.records import WorkedComputation
from workbench.qt.widgets.math_text import math_html

_CSS = """
<style>
 p.step { margin: 6px 0 0 0; }
 span.what { color: #444; }
 span.formula { font-family: 'DejaVu Serif', serif; font-weight: bold; }
 p.numbers { font-family: 'DejaVu Sans Mono', monospace; margin: 0 0 0 18px; }
 .note { color: #0b5394; }
 .source { color: #555; font-size: small; }
</style>
"""


def _text(value: str) -> str:
    return html.escape(value).replace("\n", "<br>")


def worked_html(computation: WorkedComputation, header: str = "") -> str:
    """Each step on two lines (what and the formula, then the numbers), so it wraps in a
    narrow dock instead of scrolling sideways."""
    steps = "".join(
        f"<p class='step'>{number}. <span class='what'>{_text(line.label)}:</span> "
        f"<span class='formula'>{math_html(line.formula)}</span></p>"
        f"<p class='numbers'>{_text(line.working)}</p>"
        for number, line in enumerate(computation.lines, 1))
    note = f"<p class='note'>{_text(computation.note)}</p>" if computation.note else ""
    source = (f"<p class='source'>Source: {_text(computation.source)}</p>"
              if computation.source else "")
    return f"{_CSS}{header}<h3>{math_html(computation.title)}</h3>{steps}{note}{source}"


class WorkedView(QTextBrowser):
    """A read-only rich-text view of a worked computation or a one-line message."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.placeholder = placeholder
        self.computation: WorkedComputation | None = None
        self.show_message(placeholder)

    def show_computation(self, computation: WorkedComputation, header: str = "") -> None:
        self.computation = computation
        self.setHtml(worked_html(computation, header))

    def show_message(self, text: str) -> None:
        self.computation = None
        self.setHtml(f"<p style='color:#555'>{_text(text)}</p>")
