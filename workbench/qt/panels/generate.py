"""Generation console: prompt the model and watch text stream under a decoding strategy.

Tokens arrive in `TokensGenerated` batches (a few dozen times a second) from a cancellable
query on a snapshot (the session's latest, or a checkpoint the user opens), and each batch is
appended to the view: nothing shown is drawn again, so the GUI thread's work per token stays
the same however long the text grows. Hover a token for its probability, entropy, rank and
the top alternatives; click one to re-sample from there (the text before it becomes the
prompt, with the next seed). A unit or attention head can be clamped while generating: the
boxes offer the snapshot's own layers, units and heads, and a clamp on one that does not exist
is refused with the valid range. Every generation goes into the history with its settings and
clamp.
"""

from __future__ import annotations

import dataclasses
import html
import traceback
from typing import Any, ClassVar

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QToolTip,
    QVBoxLayout,
)

from workbench.core.config.fields import from_dict, to_dict
from workbench.core.config.generation import (
    GenerationConfig,
    clamp_problems,
    describe_settings,
)
from workbench.core.events import JobFailed, Progress, TokenGenerated, TokensGenerated
from workbench.core.jobs import user_message
from workbench.qt.panel import Panel
from workbench.qt.widgets.boxes import column, row
from workbench.qt.widgets.clamp_box import ClampBox
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.control_column import ControlColumn
from workbench.qt.widgets.snapshot_source import SnapshotSource, no_model_text
from workbench.qt.widgets.task_guard import require_task
from workbench.qt.widgets.token_stream import TokenStreamView, describe

SAMPLING = ("sample", "top-k", "top-p")
HINT = ("Hover a token for its probability and alternatives; click it to re-sample from there. "
        "Orange: how unlikely each token was.")
CALLER = "generate"  # the console's name in the query queue
USES = {"temperature": SAMPLING, "seed": SAMPLING, "top_k": ("top-k",), "top_p": ("top-p",),
        "beam_width": ("beam",), "length_penalty": ("beam",)}


class GeneratePanel(Panel):
    name: ClassVar[str] = "generate"
    title: ClassVar[str] = "Generate"
    area: ClassVar[str] = "bottom"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        # the session's latest snapshot, or a checkpoint the user opened, which then stays
        self.source_box = SnapshotSource(controller, self._describe_source)
        self.source_box.changed.connect(lambda _snapshot: self._show_source())
        self.source = self.source_box.label
        self.tokens: list[TokenGenerated] = []
        self.prompt_used = ""
        # (prompt, text, settings, clamp, the snapshot's label) of every generation
        self.history: list[tuple[str, str, GenerationConfig, dict | None, str]] = []
        self._generating = False
        # The prompt comes from the opened corpus (core/corpus/prompt.py) until the user types
        # one of their own: a fixed "ROMEO:" never occurs in the shipped plays.
        self.prompt = QPlainTextEdit("")
        self.suggested_prompt = ""
        controller.corpus_changed.connect(self._prompt_from_corpus)
        self.prompt.setPlaceholderText("Prompt (empty: start from the beginning-of-text token)")
        self.prompt.setMaximumHeight(70)
        self.form = ConfigForm(GenerationConfig)
        self.form.changed.connect(lambda _config: self._enable_fields())
        self._enable_fields()
        self.clamp_box = ClampBox()
        self.generate_button = QPushButton("Generate")
        self.generate_button.setDefault(True)
        self.generate_button.clicked.connect(lambda _checked=False: self.generate())
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.output = TokenStreamView()
        self.output.hovered.connect(self.show_token)
        self.output.clicked.connect(self.resample_from)
        self.info = QLabel(HINT)
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.history_list = QListWidget()
        self.history_list.currentRowChanged.connect(self._show_history)
        left = column(self.source_box, QLabel("Prompt"), self.prompt, self.form,
                      self.clamp_box, row(self.generate_button, self.stop_button))
        left.layout().addStretch(1)
        scroll = ControlColumn(left)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(column(self.output, self.info))
        right.addWidget(column(QLabel("History"), self.history_list))
        right.setSizes([400, 120])
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([330, 570])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        controller.following_changed.connect(self._on_following)
        controller.query_queue.state_changed.connect(self._on_query_state)
        controller.lesson_action.connect(self._on_lesson)
        self._show_source()

    def _enable_fields(self) -> None:
        """Only the settings the chosen strategy uses are editable."""
        strategy = self.form.editors["strategy"].currentText()
        for name, strategies in USES.items():
            self.form.editors[name].setEnabled(strategy in strategies)

    # --- source -------------------------------------------------------------------------------

    @Slot(str, object)
    def _on_lesson(self, action: str, value: Any) -> None:
        """A lesson step sets the prompt or the decoding settings, or hands over its model."""
        if action == "prompt":
            self.prompt.setPlainText(str(value))
        elif action == "generation":
            current = self.form.config() or GenerationConfig()
            self.form.set_config(from_dict(GenerationConfig, {**to_dict(current), **value}))
            self._enable_fields()
        elif action == "snapshot":
            self.source_box.follow_session(value)

    @property
    def snapshot(self) -> Any:
        return self.source_box.snapshot

    def _describe_source(self, snapshot: Any) -> str:
        return no_model_text(self.controller) if snapshot is None else f"Model: {snapshot.label}"

    @Slot(str, bool)
    def _on_following(self, _run_dir: str, _following: bool) -> None:
        self.source_box.refresh()

    def _show_source(self) -> None:
        if self.snapshot is not None:
            self.clamp_box.fit(self.snapshot.model_config)
        self.generate_button.setEnabled(self.snapshot is not None and not self._generating)

    # --- generating ---------------------------------------------------------------------------

    def _prompt_from_corpus(self, corpus) -> None:
        stats = corpus.stats if corpus is not None else None
        suggestion = stats.prompt if stats is not None else ""
        if self.prompt.toPlainText() == self.suggested_prompt:  # not the user's own
            self.prompt.setPlainText(suggestion)
        self.suggested_prompt = suggestion

    def generate(self, prompt: str | None = None) -> bool:
        config = self.form.config()
        if self.snapshot is None or config is None:
            self.controller.report_error("Nothing to generate with: train a model or open a "
                                         "checkpoint, and fix the settings marked in red.")
            return False
        prompt = self.prompt.toPlainText() if prompt is None else prompt
        clamp = self.clamp_box.clamp()
        problems = clamp_problems(self.snapshot.model_config, clamp)
        if problems:  # it would silently do nothing: say why and what would work
            self.controller.report_error("Clamp refused: " + " ".join(problems))
            return False
        try:
            require_task(self.snapshot, "language_model", "write text")
            spec = self.controller.backend.inspection.generation_job(
                self.snapshot, prompt, config, clamp)
        except Exception as exc:  # noqa: BLE001 - bad settings: say what to change
            self.controller.report_error(user_message(exc), traceback.format_exc())
            return False
        self.tokens, self.prompt_used, self._config = [], prompt, config
        self._clamp, self._source = clamp, self.snapshot.label
        self._generating = True
        self.generate_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.output.start_stream(prompt)
        # queued behind an inspector's probe if one runs (they take a fraction of a second)
        if not self.controller.run_query(spec, on_result=self._on_done, on_error=self._on_stop,
                                         caller=CALLER, on_event=self._on_event):
            self._finish()
        return True

    @Slot(str, str)
    def _on_query_state(self, caller: str, state: str) -> None:
        if caller == CALLER and state == "waiting":
            self.info.setText("Waiting for an inspector's probe to finish…")
        elif caller == CALLER and state == "running":
            self.info.setText(HINT)

    def stop(self) -> None:
        if not self._generating:
            return
        waiting = self.controller.query_queue.state(CALLER) == "waiting"
        self.controller.query_queue.cancel(CALLER)  # a running one ends in _on_stop
        if waiting:
            self._finish()

    def _on_event(self, event: Any) -> None:
        if self._generating and isinstance(event, TokensGenerated):
            self.tokens.extend(event.tokens)
            self.output.append_tokens(event.tokens)
        elif self._generating and isinstance(event, Progress):  # a beam search under way
            self.info.setText(html.escape(event.message))  # the label is rich text

    def _on_done(self, result: Any) -> None:
        self._finish()
        self.history.append((self.prompt_used, result.text, self._config, self._clamp,
                             self._source))
        stopped = result.stopped_by
        first = self.prompt_used.strip().splitlines()[0][:40] if self.prompt_used.strip() else ""
        settings = describe_settings(self._config, self._clamp)
        self.history_list.addItem(f"{first or '(empty prompt)'} → {len(self.tokens)} tokens: "
                                  f"{settings} ({stopped})")
        item = self.history_list.item(self.history_list.count() - 1)
        item.setToolTip(f"{self._source}\n{settings}\nstopped by: {stopped}")

    def _on_stop(self, outcome: Any) -> None:
        self._finish()
        if isinstance(outcome, JobFailed):
            self.controller.report_error(outcome.message, outcome.detail)

    def _finish(self) -> None:
        self._generating = False
        self.stop_button.setEnabled(False)
        self.info.setText(HINT)  # not the last progress or waiting line
        self._show_source()

    # --- output -------------------------------------------------------------------------------

    def generated_text(self) -> str:
        return "".join(t.text for t in self.tokens)

    def show_token(self, index: int) -> None:
        if 0 <= index < len(self.tokens):
            self.info.setText(describe(self.tokens[index]))
            QToolTip.showText(QCursor.pos(), self.info.text(), self.output)

    def resample_from(self, index: int) -> bool:
        """Keep the text before token `index`, and generate again from there with the next
        seed (the same seed would draw the same token again)."""
        if self._generating or not 0 <= index < len(self.tokens):
            return False
        prefix = self.prompt_used + "".join(t.text for t in self.tokens[:index])
        config = self.form.config()
        if config is None:
            return False
        self.form.set_config(dataclasses.replace(config, seed=config.seed + 1))
        self.prompt.setPlainText(prefix)
        return self.generate(prefix)

    def _show_history(self, row_index: int) -> None:
        if self._generating or not 0 <= row_index < len(self.history):
            return
        prompt, text, config, clamp, source = self.history[row_index]
        self.output.show_text(prompt, text)
        self.info.setText(html.escape(f"{source}: {describe_settings(config, clamp)}"))

