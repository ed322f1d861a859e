"""The Corpus panel: open a corpus, see its statistics and text, tokenize it for training.

After a corpus loads, the panel tokenizes it at once with the current tokenizer settings
(character-level by default) and hands the result to the controller, so a model can be trained
without visiting this panel. Opening goes through the window when it offers `open_corpus`
(that records recent files), else straight through the controller. The Filter and Encoding
boxes are published as `controller.corpus_options`, so the File menu, recent files and the
command line load with them too, not only this panel's buttons; so are the cleaning settings
(cleaning_bar.py), which the panel offers when a text carries a Gutenberg header and footer,
markup or control characters.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.config.fields import from_dict, to_dict
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus import limits
from workbench.core.corpus.encodings import ENCODING_CHOICES
from workbench.core.corpus.loading import DEFAULT_GLOB, DOCUMENT_SEPARATOR, Corpus
from workbench.core.resources import default_corpus_path, full_corpus_path, resource_path
from workbench.qt.panel import Panel
from workbench.qt.panels.corpus.cleaning_bar import CleaningBar
from workbench.qt.panels.corpus.stats_view import CharacterTable, StatsView, TopWordsTable
from workbench.qt.panels.corpus.text_preview import TextPreview
from workbench.qt.panels.corpus.tokenize_requests import TokenizeRequests
from workbench.qt.panels.corpus.tokenizer_view import TokenizerView
from workbench.qt.widgets.corpus_open import ask_corpus_file, ask_corpus_folder

SHAKESPEARE_CREDIT = (
    "Texts: William Shakespeare (public domain), Project Gutenberg editions as packaged by "
    "<b>Open Shakespeare / Open Knowledge Foundation</b> (CC-BY 2.5).")
NAMES_CREDIT = ("Names: the first-name lists of the <b>1990 United States Census</b> (public "
                "domain), as packaged in the <i>names</i> package by Trey Hunner.")


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


class CorpusPanel(Panel):
    name = "corpus"
    title = "Corpus"
    area = "left"
    menu_title = "&Corpus"

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.corpus: Corpus | None = None
        self.cleaning = CleaningConfig()  # how the next load cleans the text
        self.setAcceptDrops(True)
        self._build_source_row()
        self.header = QLabel("No corpus loaded. Open a file or folder, or drop one here.")
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.credit = QLabel(SHAKESPEARE_CREDIT)
        self.credit.setWordWrap(True)
        self.credit.setVisible(False)
        self.problems = QListWidget()
        self.problems.setObjectName("corpus-problems")
        self.problems.setMaximumHeight(90)
        self.problems.setVisible(False)
        self.cleaning_bar = CleaningBar()
        self.cleaning_bar.apply_requested.connect(self.apply_cleaning)
        self.stats_view = StatsView(on_error=controller.report_error)
        self.top_words = TopWordsTable()
        self.characters = CharacterTable()
        self.preview = TextPreview()
        self.tokenizer_view = TokenizerView()
        self.tokenizer_view.tokenize_requested.connect(self.tokenize)
        self.tokenize_requests = TokenizeRequests(controller, self.tokenizer_view.result.setText)
        controller.lesson_action.connect(self._on_lesson)
        self.tabs = QTabWidget()
        for widget, label in ((self.stats_view, "Statistics"), (self.top_words, "Top words"),
                              (self.characters, "Characters"), (self.preview, "Text"),
                              (self.tokenizer_view, "Tokenizer")):
            self.tabs.addTab(widget, label)
        layout = QVBoxLayout(self)
        layout.addLayout(self.source_row)
        layout.addLayout(self.options_row)
        layout.addWidget(self.header)
        layout.addWidget(self.credit)
        layout.addWidget(self.problems)
        layout.addWidget(self.cleaning_bar)
        layout.addWidget(self.tabs, 1)
        controller.corpus_changed.connect(self.show_corpus)
        controller.tokens_changed.connect(self.show_tokens)

    def _build_source_row(self) -> None:
        open_file = QPushButton("Open file…")
        open_file.clicked.connect(self.choose_file)
        open_folder = QPushButton("Open folder…")
        open_folder.clicked.connect(self.choose_folder)
        shipped = QToolButton()
        shipped.setText("Shipped corpora")
        shipped.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(shipped)
        menu.addAction("Shakespeare, 8 plays (1 MB)",
                       lambda: self.open_path(str(default_corpus_path())))
        menu.addAction("Shakespeare, 42 works (5 MB)",
                       lambda: self.open_path(str(full_corpus_path())))
        menu.addAction("First names, 1990 US Census (5,163 names, one a line)",
                       lambda: self.open_path(str(resource_path("corpora", "names"))))
        shipped.setMenu(menu)
        shipped.setMinimumWidth(shipped.sizeHint().width() + 20)  # room for the menu arrow
        self.source_row = QHBoxLayout()
        for widget in (open_file, open_folder, shipped):
            self.source_row.addWidget(widget)
        self.source_row.addStretch(1)
        self.glob = QLineEdit(DEFAULT_GLOB)
        self.glob.setToolTip("Folders: load files whose names match one of these patterns "
                             "(space separated; a.txt.gz matches *.txt too)")
        self.encoding = QComboBox()
        self.encoding.setEditable(True)
        self.encoding.addItems(ENCODING_CHOICES)
        self.encoding.setToolTip("auto: UTF-8, or detected with a warning. Choose one when "
                                 "letters look wrong, then Reload.")
        self.max_mb = QSpinBox()
        self.max_mb.setRange(1, max(limits.total_memory_bytes() // 2**20, 1))
        self.max_mb.setSuffix(" MB")
        self.max_mb.setValue(limits.max_corpus_mb())
        self.max_mb.setToolTip(
            "Loading stops with a message when the text (after decompression) would be larger. "
            f"Default {limits.default_max_corpus_mb():,} MB, a sixteenth of this computer's "
            "memory: the text, its token ids (8 bytes each) and the model take many times its "
            "size. Only regular files are read (not pipes or devices).")
        reload = QPushButton("Reload")
        reload.setToolTip("Load the current corpus again with this filter and encoding")
        reload.clicked.connect(self.reload)
        self.options_row = QHBoxLayout()
        for widget in (QLabel("Filter:"), self.glob, QLabel("Encoding:"), self.encoding,
                       QLabel("Largest corpus:"), self.max_mb, reload):
            self.options_row.addWidget(widget)
        self.options_row.setStretch(1, 1)
        self.glob.textChanged.connect(self._publish_options)
        self.encoding.currentTextChanged.connect(self._publish_options)
        self.max_mb.valueChanged.connect(self._publish_options)
        self._publish_options()

    def menu_actions(self) -> list[QAction]:
        find = QAction("&Find in corpus text…", self, shortcut=QKeySequence("Ctrl+Shift+F"))
        find.triggered.connect(self.focus_find)
        tokenize = QAction("&Tokenize corpus", self, shortcut=QKeySequence("Ctrl+Shift+T"))
        tokenize.triggered.connect(self.tokenizer_view.request)
        return [find, tokenize]

    # --- opening ------------------------------------------------------------------------------

    def options(self) -> dict:
        return {"glob": self.glob.text().strip() or DEFAULT_GLOB,
                "encoding": self.encoding.currentText().strip(), "cleaning": self.cleaning,
                "max_mb": self.max_mb.value()}

    def _publish_options(self, *_args) -> None:
        self.controller.corpus_options = self.options()

    def open_path(self, path: str) -> bool:
        """Open through the main window (it records recent files), else the controller."""
        opener, widget = self.controller.open_corpus, self.parentWidget()
        while widget is not None:  # a floating dock is a window of its own: walk up parents
            if hasattr(widget, "open_corpus"):
                opener = widget.open_corpus
                break
            widget = widget.parentWidget()
        return opener(path)  # the controller adds this panel's filter and encoding

    def choose_file(self) -> None:
        path = ask_corpus_file(self)
        if path:
            self.open_path(path)

    def choose_folder(self) -> None:
        path = ask_corpus_folder(self)
        if path:
            self.open_path(path)

    def reload(self) -> None:
        if self.corpus is not None:
            self.open_path(self.corpus.path)

    def apply_cleaning(self, config: CleaningConfig) -> bool:
        """Clean this way from now on: the corpus loads again, cleaned."""
        self.cleaning = config
        self._publish_options()
        if self.corpus is None:
            return False
        return self.open_path(self.corpus.path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.open_path(urls[0].toLocalFile())

    def focus_find(self) -> None:
        self.tabs.setCurrentWidget(self.preview)
        self.preview.find_box.setFocus()
        self.preview.find_box.selectAll()

    # --- showing ------------------------------------------------------------------------------

    def show_corpus(self, corpus) -> None:
        if not isinstance(corpus, Corpus):
            return
        self.corpus = corpus
        stats = corpus.stats
        encodings = sorted(set(corpus.encodings.values()))
        self.header.setText(
            f"<b>{corpus.name}</b> · {len(corpus.documents)} document(s) · "
            f"{_size(corpus.size_bytes)} · encoding {', '.join(encodings)}<br>"
            f"<span style='color:#555'>{corpus.path}</span>")
        credit = _shipped_credit(corpus.path)  # each shipped corpus credits its own source
        self.credit.setText(credit)
        self.credit.setVisible(bool(credit))
        self.problems.clear()
        for warning in corpus.warnings:
            self.problems.addItem("⚠ " + warning)
        for name, reason in corpus.skipped:
            self.problems.addItem(f"Skipped {name}: {reason}")
        self.problems.setVisible(self.problems.count() > 0)
        self.cleaning = corpus.cleaning  # what this corpus was loaded with
        self._publish_options()
        self.cleaning_bar.show_corpus(corpus)
        for view in (self.stats_view, self.top_words, self.characters):
            view.show_stats(stats)
        starts, offset = [], 0
        for name, text in corpus.documents:
            starts.append((name, offset))
            offset += len(text) + len(DOCUMENT_SEPARATOR)
        self.preview.set_corpus(corpus.text, starts)
        self.tokenizer_view.forget_held_out()  # its documents: the old names mean nothing
        self.tokenize(self.tokenizer_view.config())

    @Slot(str, object)
    def _on_lesson(self, action: str, value) -> None:
        """A lesson step tokenizes the corpus with these settings (the rest as they are)."""
        if action != "tokenizer":
            return
        current = self.tokenizer_view.config() or TokenizerConfig()
        config = from_dict(TokenizerConfig, {**to_dict(current), **value})
        self.tokenizer_view.set_config(config)
        self.tokenize(config)

    def tokenize(self, config) -> bool:
        if self.corpus is None:
            return False
        if config is None or config.problems():
            self.tokenizer_view.result.setText("Not tokenized: fix the tokenizer settings.")
            return False
        return self.tokenize_requests.request(self.corpus, config)

    def show_tokens(self, tokens) -> None:
        head = self.corpus.text[:400] if self.corpus is not None else ""
        self.tokenizer_view.show_tokens(tokens, head)


def _shipped_credit(path: str) -> str:
    """The credit line of a corpus shipped in resources/corpora ("" for the user's own)."""
    try:
        shipped = resource_path("corpora").resolve()
        relative = Path(path).resolve().relative_to(shipped)
    except (FileNotFoundError, OSError, ValueError):
        return ""
    return NAMES_CREDIT if relative.parts[:1] == ("names",) else SHAKESPEARE_CREDIT
