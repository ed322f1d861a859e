"""Architecture panel: pick a task and a model, set its hyper-parameters, see what it costs and
computes.

The task selector (language model, sequence to sequence, ...) offers the architectures that can
learn the task and the task's own settings (its data). The forms are generated from the config
dataclasses; every valid edit becomes the session's task and model config (what the Training
panel trains) and, after a 150 ms pause, a summary query (parameter counts, layer table, memory,
FLOPs) is queued for the query thread; the first one imports torch. Until the summary of the
settings shown arrives, the summary side is greyed and says that it is updating, so an old table
never passes for the new model's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.models import MODEL_CONFIGS, architectures_for
from workbench.core.config.summary import ModelSummary, human_bytes, human_count
from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS
from workbench.qt.panel import Panel
from workbench.qt.widgets.architecture_cards import architecture_card
from workbench.qt.widgets.block_diagram import BlockDiagram
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.counted_sizes import CountedSizes
from workbench.qt.widgets.seq2seq_cards import seq2seq_card
from workbench.qt.widgets.task_picker import TaskPicker

DEFAULT_ARCH = "lstm"
DEFAULT_VOCAB = 5000  # seed 002's vocabulary, until a corpus is tokenized
DEFAULT_SIDE_VOCAB = 64  # a source or target vocabulary, until a task's data is prepared
DEBOUNCE_MS = 150
FIRST_DESCRIPTION_MS = 500  # after the window's first paint
SUMMARY_BATCH, SUMMARY_SEQ = 32, 128  # the training form's defaults (B, T)
BIDIRECTIONAL_NOTE = (
    "A language model predicts x<sub>t+1</sub> from x<sub>1</sub>…x<sub>t</sub>. A backward "
    "layer reads the sequence from the right, so at step t it has already seen x<sub>t+1</sub>: "
    "the model would copy the answer. Training refuses it; use it for encoders and classifiers."
)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_COLUMNS = ("Layer", "Type", "Output shape", "Param # (torch)", "Param # (Keras)", "Note")


class ArchitecturePanel(Panel):
    name = "architecture"
    title = "Architecture"
    area = "left"

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.summary: ModelSummary | None = None
        self._asked: Any = None  # the config of the newest summary query
        self._described: Any = None  # the config whose summary is shown
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.describe)
        # torch loads with the first description: not before the panel is on screen and the
        # window has painted (start-up stays light; a hidden tab never loads it)
        self._shown = False

        self.task_picker = TaskPicker()
        self.task = self.task_picker.name
        self.picker = QComboBox(objectName="architecture-picker")
        self.forms: dict[str, ConfigForm] = {}
        self.stack = QStackedWidget()
        for name in TASK_CONFIGS:
            for arch, config_type in architectures_for(name).items():
                if arch in self.forms:
                    continue
                form = ConfigForm(config_type)
                form.changed.connect(self._on_form_changed)
                form.advanced.toggled.connect(self._fit_stack)
                self.forms[arch] = form
                self.stack.addWidget(form)
        self.match_target = QComboBox(objectName="match-target")
        self._fill_pickers()
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.task_picker.changed.connect(self._on_task_form)
        self.bidirectional_note = QLabel(BIDIRECTIONAL_NOTE, wordWrap=True)
        self.bidirectional_note.setStyleSheet("color: #8a4b00;")
        self.vocab_label = QLabel(wordWrap=True)
        self.counted = CountedSizes()  # an encoder task's assumed vocabulary and labels
        self.counted.changed.connect(lambda: self._on_form_changed(self.form.config()))
        self.updating = QLabel("", objectName="architecture-updating")
        self.updating.setStyleSheet("color: #8a4b00; font-weight: bold")
        self.stats = QLabel("Describing…", wordWrap=True, objectName="architecture-stats")
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.match_button = QPushButton("Propose")
        self.match_button.clicked.connect(self.propose_matched_size)
        self.match_result = QLabel("", wordWrap=True)
        self.apply_button = QPushButton("Apply", enabled=False)
        self.apply_button.clicked.connect(self.apply_matched_size)
        self.proposal: Any = None
        match_box = QGroupBox("Matched size (fair comparisons)")
        match_layout = QVBoxLayout(match_box)
        match_layout.addWidget(QLabel("Match the parameter count of:"))
        target_row = QHBoxLayout()
        target_row.addWidget(self.match_target, 1)
        target_row.addWidget(self.match_button)
        match_layout.addLayout(target_row)
        match_layout.addWidget(self.match_result)
        self.match_result.setMinimumHeight(2 * self.fontMetrics().lineSpacing() + 6)
        match_layout.addWidget(self.apply_button, 0, Qt.AlignmentFlag.AlignRight)

        self.table = QTableWidget(0, len(_COLUMNS), objectName="architecture-table")
        self.table.setHorizontalHeaderLabels(_COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.diagram = BlockDiagram()
        self.card = QLabel(wordWrap=True, objectName="equation-card")
        self.card.setTextFormat(Qt.TextFormat.RichText)
        self.card.setAlignment(Qt.AlignmentFlag.AlignTop)

        left = QVBoxLayout()
        left.addWidget(self.task_picker)
        pick_row = QHBoxLayout()
        pick_row.addWidget(QLabel("Architecture:"))
        pick_row.addWidget(self.picker, 1)
        left.addLayout(pick_row)
        left.addWidget(self.stack)
        left.addWidget(self.bidirectional_note)
        left.addWidget(self.vocab_label)
        left.addWidget(self.counted)
        left.addWidget(match_box)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.updating)
        right.addWidget(self.stats)
        right.addWidget(self.table)
        right.addWidget(QLabel("<b>Block diagram</b>"))
        right.addWidget(self.diagram)
        right.addWidget(self.card)
        right.addStretch(1)
        layout = QHBoxLayout(self)
        left_box, self.summary_box = QWidget(), QWidget()
        left_box.setLayout(left)
        self.summary_box.setLayout(right)
        left_box.setMaximumWidth(380)
        layout.addWidget(left_box)
        layout.addWidget(self.summary_box, 1)

        given = controller.model_config
        if given is None:  # an LSTM to start with: the usual first model of characters
            self.picker.blockSignals(True)
            self.picker.setCurrentIndex(max(self.picker.findData(DEFAULT_ARCH), 0))
            self.picker.blockSignals(False)
        controller.tokens_changed.connect(self._on_tokens)
        controller.model_config_changed.connect(self._on_session_config)
        controller.task_config_changed.connect(self._on_session_task)
        self._on_tokens(controller.tokens)
        if given is not None:
            self._on_session_config(given)
        else:
            self._on_pick(self.picker.currentIndex())

    # --- the configuration ----------------------------------------------------------------------

    @property
    def form(self) -> ConfigForm:
        return self.forms[self.picker.currentData()]

    def vocab_size(self) -> int:
        tokens = self.controller.tokens
        return tokens.tokenizer.vocab_size if tokens is not None else 0

    def config(self) -> Any:
        """The form's config with the session's vocabulary, or None while it is invalid.
        (An encoder-decoder's two vocabularies come from its task's data when it trains.)"""
        config = self.form.config()
        if config is None or config.problems():
            return None
        if hasattr(config, "vocab_size"):
            return dataclasses.replace(config, vocab_size=self.vocab_size())
        return config

    def _counted(self, config: Any) -> Any:
        """`config` with the vocabularies the counts assume where none is known yet; for an
        encoder task, the whole model the task trains: the encoder with the task's head, for
        the vocabulary and labels in the counted-sizes boxes."""
        task = self.task_picker.config() or TASK_CONFIGS[self.task]()
        if hasattr(task, "model_for_counts"):
            encoder = dataclasses.replace(config, vocab_size=self.counted.vocab.value())
            return task.model_for_counts(encoder, self.counted.labels.value())
        if hasattr(config, "vocab_size"):
            return dataclasses.replace(config, vocab_size=config.vocab_size or DEFAULT_VOCAB)
        return dataclasses.replace(config, **{
            f.name: getattr(config, f.name) or DEFAULT_SIDE_VOCAB
            for f in dataclasses.fields(config) if f.name.endswith("vocab_size")})

    # --- the task -------------------------------------------------------------------------------

    def _fill_pickers(self) -> None:
        """The architectures that can learn the current task, in both pickers."""
        allowed = architectures_for(self.task)
        for box in (self.picker, self.match_target):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            for arch, config_type in allowed.items():
                box.addItem(config_type.title, arch)
            box.setCurrentIndex(max(box.findData(current), 0))
            box.blockSignals(False)

    def _on_task_form(self, config: Any) -> None:
        if config is None:
            return
        if config.name != self.task:
            self.task = config.name
            self.counted.for_task(getattr(config, "counted_labels", 0))
            self._fill_pickers()
            self._on_pick(self.picker.currentIndex())
        if config != self.controller.task_config:
            self.controller.set_task_config(config)
        self._on_tokens(self.controller.tokens)

    @Slot(object)
    def _on_session_task(self, config: Any) -> None:
        """A recipe or a run chose a task: show it here."""
        config = config if config is not None else TASK_CONFIGS[DEFAULT_TASK]()
        if self.task_picker.config() != config:
            self.task_picker.set_config(config)

    def _on_pick(self, index: int) -> None:
        arch = self.picker.itemData(index)
        if arch is None:
            return
        self.stack.setCurrentWidget(self.forms[arch])
        for form in self.forms.values():  # the stack takes the height of the shown form only
            shown = form is self.forms[arch]
            policy = QSizePolicy.Policy.Preferred if shown else QSizePolicy.Policy.Ignored
            form.setSizePolicy(policy, policy)
        self.stack.setFixedHeight(self.form.sizeHint().height())  # no gap under a short form
        self._on_form_changed(self.form.config())

    def _fit_stack(self, *_: Any) -> None:
        # the stack does not follow a form that grows (Advanced opened): size it to the form
        form = self.form
        form.layout().activate()
        self.stack.setFixedHeight(form.sizeHint().height())

    def _on_form_changed(self, config: Any) -> None:
        self._fit_stack()  # a problem message under the form makes it taller
        self.bidirectional_note.setVisible(bool(getattr(config, "bidirectional", False))
                                           and self.task == DEFAULT_TASK)
        valid = self.config()
        if valid is None:
            self.stats.setText("<span style='color:#b00020'>Fix the settings on the left: "
                               + " ".join(self.form.problems()) + "</span>")
            return
        if valid != self.controller.model_config:
            self.controller.set_model_config(valid)
        self._mark_stale()
        if self._shown:
            self._timer.start()

    def _mark_stale(self) -> None:
        """Grey the summary while it describes other settings than the form's."""
        valid = self.config()
        wanted = None if valid is None else self._counted(valid)
        stale = self.summary is not None and wanted != self._described
        self.summary_box.setEnabled(not stale)  # greyed: clearly not this model's table
        self.updating.setText("Updating for the new settings…" if stale else "")

    @Slot(object)
    def _on_session_config(self, config: Any) -> None:
        """Another panel (a recipe, a saved run) chose a model: show it here."""
        if config is None or config.arch not in self.forms:
            return
        form = self.forms[config.arch]
        shown = form.config()
        vocab = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)
                 if f.name.endswith("vocab_size")}
        if shown is None or dataclasses.replace(shown, **vocab) != config:
            form.set_config(dataclasses.replace(config, **dict.fromkeys(vocab, 0)))
        if self.picker.findData(config.arch) < 0:  # a model of another task: show that task
            task = next((name for name in TASK_CONFIGS if config.arch in architectures_for(name)),
                        DEFAULT_TASK)
            self.task_picker.set_config(TASK_CONFIGS[task]())
        if self.picker.currentData() != config.arch:
            self.picker.setCurrentIndex(self.picker.findData(config.arch))
        else:
            self._mark_stale()
            if self._shown:
                self._timer.start()

    @Slot(object)
    def _on_tokens(self, tokens: Any) -> None:
        task = TASK_CONFIGS[self.task]
        encoder_task = hasattr(task, "model_for_counts")
        self.counted.setVisible(encoder_task)
        self.vocab_label.setVisible(not encoder_task)
        # (an encoder task's boxes say where its sizes come from)
        if not getattr(task, "needs_corpus", True):
            self.vocab_label.setText(f"Source and target vocabularies come from the task's data "
                                     f"when training starts; the counts assume "
                                     f"{DEFAULT_SIDE_VOCAB} tokens each until then.")
        elif tokens is None:
            self.vocab_label.setText(f"Vocabulary: {DEFAULT_VOCAB:,} assumed for the counts "
                                     "until a corpus is tokenized.")
        else:
            self.vocab_label.setText(f"Vocabulary: {self.vocab_size():,} "
                                     f"{tokens.tokenizer.kind} tokens from the corpus.")
        self._on_form_changed(self.form.config())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._shown:
            self._shown = True
            QTimer.singleShot(FIRST_DESCRIPTION_MS, self, self.describe)

    # --- the summary ------------------------------------------------------------------------------

    def describe(self) -> None:
        config = self.config()
        if config is None:
            return
        config = self._counted(config)
        if config == self._asked or config == self._described and self._asked is None:
            return  # described or being described already
        shape = config.encoder_config() if hasattr(config, "encoder_config") else config
        seq = min(SUMMARY_SEQ, getattr(shape, "context_length", SUMMARY_SEQ),
                  getattr(shape, "max_length", SUMMARY_SEQ))
        try:
            spec = self.controller.backend.models.describe_job(config, SUMMARY_BATCH, seq)
        except Exception as exc:  # noqa: BLE001 - an invalid config: say why, keep the view
            self.stats.setText(str(exc))
            return
        self._asked = config
        if self.summary is None:
            self.stats.setText("Describing… (the first description loads torch)")
        # a newer description replaces one still waiting (and cancels one running)
        self.controller.run_query(spec, on_result=self._on_summary, on_error=self._on_failed,
                                  caller="architecture:summary")

    def _on_failed(self, outcome: Any) -> None:
        self._asked = None
        self.summary_box.setEnabled(True)
        self.updating.setText("")
        self.stats.setText(f"Could not describe the model: {getattr(outcome, 'message', '')}")

    def _on_summary(self, summary: ModelSummary) -> None:
        config, self._asked, self._described = self._asked, None, self._asked
        self.summary = summary
        self.stats.setText(_stats_html(summary))
        self._fill_table(summary)
        self.diagram.set_summary(summary)
        self._mark_stale()
        if "seq2seq" in getattr(config, "tasks", ()):
            self.card.setText(seq2seq_card(config))
            return
        if hasattr(config, "encoder_config"):  # an encoder with a head: the encoder's card
            config = config.encoder_config()
        self.card.setText(architecture_card(summary, config))

    def _fill_table(self, summary: ModelSummary) -> None:
        self.table.setRowCount(len(summary.rows) + 1)
        rows = [(r.name, r.kind, r.output_shape, r.params, r.keras_params, r.note)
                for r in summary.rows]
        rows.append(("Total", "", "", summary.total_params, summary.keras_params,
                     "tied weights counted once"))
        for i, values in enumerate(rows):
            for j, value in enumerate(values):
                text = f"{value:,}" if isinstance(value, int) else value
                item = QTableWidgetItem(text)
                if isinstance(value, int):
                    item.setTextAlignment(_RIGHT)
                if i == len(rows) - 1:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(len(_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()
        # as tall as its rows (a transformer has ~10): the diagram and card stay in view
        height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
        height += sum(self.table.rowHeight(i) for i in range(self.table.rowCount()))
        self.table.setFixedHeight(height)

    # --- matched size -----------------------------------------------------------------------------

    def propose_matched_size(self) -> None:
        config, target_form = self.config(), self.forms[self.match_target.currentData()]
        target = target_form.config()
        if config is None or target is None or target.problems():
            self.match_result.setText("Both models need valid settings first.")
            return
        if hasattr(target, "vocab_size"):  # the same vocabulary as the model it is matched to
            target = dataclasses.replace(target, vocab_size=self.vocab_size())
        config, target = self._counted(config), self._counted(target)
        spec = self.controller.backend.models.matched_size_job(config, target)
        self.match_result.setText("Searching…")
        self.controller.run_query(spec, on_result=self._on_matched,
                                  on_error=self._on_match_failed,
                                  caller="architecture:matched-size")

    def _on_match_failed(self, outcome: Any) -> None:
        self.match_result.setText(f"No proposal: {getattr(outcome, 'message', '')}")

    def _on_matched(self, proposal: Any) -> None:
        self.proposal = proposal
        labels = {f.name: f.metadata.get("label", f.name)
                  for f in dataclasses.fields(MODEL_CONFIGS[proposal.arch])}
        label = " = ".join(labels[f].lower() for f in proposal.fields)
        self.match_result.setText(
            f"→ {label} <b>{proposal.width}</b>: {proposal.params:,} parameters vs "
            f"{proposal.target_params:,} ({proposal.relative_error:+.1%})")
        self.apply_button.setEnabled(True)

    def apply_matched_size(self) -> None:
        proposal, form = self.proposal, self.forms.get(getattr(self.proposal, "arch", ""))
        if proposal is None or form is None or form.config() is None:
            return
        form.set_config(dataclasses.replace(form.config(),
                                            **{f: proposal.width for f in proposal.fields}))
        self.picker.setCurrentIndex(self.picker.findData(proposal.arch))
        self._on_form_changed(form.config())
        self.apply_button.setEnabled(False)


def _stats_html(s: ModelSummary) -> str:
    keras = (f"Keras convention: <b>{s.keras_params:,}</b> ({s.bias_difference:,} fewer: one bias "
             "per gate)" if s.bias_difference else "Keras convention: the same count")
    return (
        f"<b>{s.title}</b>: <b>{s.total_params:,}</b> parameters in torch. {keras}.<br>"
        f"Memory for a training step (B = {s.batch_size}, T = {s.seq_len}, float32): weights "
        f"{human_bytes(s.param_bytes)} + gradients and Adam moments "
        f"{human_bytes(s.training_state_bytes)} + activations ≈ "
        f"{human_bytes(s.activation_bytes)} = <b>{human_bytes(s.training_bytes)}</b>.<br>"
        f"FLOPs per token: {human_count(s.flops_per_token)} forward, "
        f"≈ {human_count(3 * s.flops_per_token)} for a training step (forward + backward)."
    )
