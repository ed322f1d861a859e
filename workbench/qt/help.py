"""Help for a student: the Getting started page, "What is this?" on every panel, and the
welcome shown at the first start that offers the lessons.

The texts live in `resources/help/` (see `core/help_pages.py`), so a teacher can edit them.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench.core.help_pages import getting_started_markdown, panel_help

WELCOME_KEY = "help/show_welcome"


def whats_this_html(name: str) -> str:
    """The rich text Qt shows for a panel in What's This mode (empty if the file has none)."""
    entry = panel_help(name)
    if entry is None:
        return ""
    parts = [f"<b>{html.escape(entry.title)}</b><br>{html.escape(entry.what)}"]
    if entry.start:
        parts.append(f"<i>Start:</i> {html.escape(entry.start)}")
    if entry.source:
        parts.append(f"<span style='color:#555'>Source: {html.escape(entry.source)}</span>")
    return "<p>" + "</p><p>".join(parts) + "</p>"


class HelpPage(QDialog):
    """Help ▸ Getting started: the page and every panel's help, non-modal."""

    def __init__(self, panel_names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("help-getting-started")
        self.setWindowTitle("Getting started — Sequence Workbench")
        self.browser = QTextBrowser()
        self.browser.setMarkdown(getting_started_markdown(panel_names))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        screen = self.screen().availableGeometry() if self.screen() else None
        width, height = 760, 720
        if screen is not None:
            width, height = min(width, screen.width() - 80), min(height, screen.height() - 80)
        self.resize(width, height)


class Welcome(QDialog):
    """The first-start welcome: take the lessons, read Getting started, or explore."""

    def __init__(self, settings: QSettings, open_lessons: Callable[[], None] | None,
                 open_help: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("help-welcome")
        self.setWindowTitle("Welcome to Sequence Workbench")
        self.settings = settings
        text = QLabel(
            "<h3>Welcome</h3><p>Train small models of text on this computer and look inside "
            "them while they learn: embeddings, recurrent networks, LSTM and GRU gates, "
            "attention and transformers.</p><p>New here? The <b>lessons</b> set the app up "
            "for you step by step, using sample models that ship with it, and ask a few "
            "questions at the end of each. <b>Getting started</b> says what each panel is "
            "for.</p>")
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        self.again = QCheckBox("Show this at start")
        self.again.setChecked(True)
        self.lessons_button = QPushButton("Start the lessons")
        self.lessons_button.setEnabled(open_lessons is not None)
        self.help_button = QPushButton("Getting started")
        close = QPushButton("Explore on my own")
        buttons = QDialogButtonBox()
        for button in (self.lessons_button, self.help_button, close):
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
        self.lessons_button.clicked.connect(lambda: self._leave(open_lessons))
        self.help_button.clicked.connect(lambda: self._leave(open_help))
        close.clicked.connect(lambda: self._leave(None))
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.again)
        layout.addWidget(buttons)
        self.setMinimumWidth(480)

    def _leave(self, then: Callable[[], None] | None) -> None:
        self.settings.setValue(WELCOME_KEY, self.again.isChecked())
        self.close()
        if then is not None:
            then()


def wants_welcome(settings: QSettings) -> bool:
    value = settings.value(WELCOME_KEY, True)
    return value not in (False, "false", "0", 0)
