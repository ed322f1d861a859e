"""Architecture panel: pick a task and a model, set its hyper-parameters, see what it costs and
computes.

The task selector (language model, sequence to sequence, ...) offers the architectures that can
learn the task and the task's own settings (its data). The forms are generated from the config
dataclasses; every valid edit becomes the session's task and model config (what the Training
panel trains) and, after a 150 ms pause, a summary query (parameter counts, layer table, memory,
FLOPs) is queued for the query thread; the first one imports torch. Until the summary of the
settings shown arrives, the summary side is greyed and says that it is updating, so an old table
never passes for the new model's.

Parts in qt/widgets: model_forms, counted_sizes, model_summary_view (the layer table),
matched_size_box; this module keeps them in step with the session's task and model config.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, QTimer, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.fields import field_values
from workbench.core.config.models import architectures_for
from workbench.core.config.summary import MatchedSize, ModelSummary
from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS
from workbench.core.events import JobStopped, failure_text
from workbench.qt.panel import Panel
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.counted_sizes import CountedSizes, vocabulary_text
from workbench.qt.widgets.matched_size_box import MatchedSizeBox
from workbench.qt.widgets.model_forms import ModelForms
from workbench.qt.widgets.model_summary_view import ModelSummaryView
from workbench.qt.widgets.start_from_model import StartFromModel
from workbench.qt.widgets.task_picker import TaskPicker

if TYPE_CHECKING:
    from workbench.core.corpus.dataset import TokenizedCorpus

DEFAULT_ARCH = "lstm"
DEBOUNCE_MS = 150
FIRST_DESCRIPTION_MS = 500  # after the window's first paint
SUMMARY_BATCH, SUMMARY_SEQ = 32, 128  # the training form's defaults (B, T)
BIDIRECTIONAL_NOTE = (
    "A language model predicts x<sub>t+1</sub> from x<sub>1</sub>…x<sub>t</sub>. A backward "
    "layer reads the sequence from the right, so at step t it has already seen x<sub>t+1</sub>: "
    "the model would copy the answer. Training refuses it; use it for encoders and classifiers."
)


class ArchitecturePanel(Panel):
    name = "architecture"
    title = "Architecture"
    area = "left"

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.summary: ModelSummary | None = None
        self._asked: ModelConfig | None = None  # the config of the newest summary query
        self._described: ModelConfig | None = None  # the config whose summary is shown
        self._timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._timer.timeout.connect(self.describe)
        # torch loads with the first description: not before the panel is on screen and the
        # window has painted (start-up stays light; a hidden tab never loads it)
        self._shown = False

        self.task_picker = TaskPicker()
        self.task = self.task_picker.name
        self.picker = QComboBox(objectName="architecture-picker")
        self.stack = ModelForms()
        self.forms = self.stack.forms
        self.stack.changed.connect(self._on_form_changed)
        self.matched = MatchedSizeBox(controller, self._pair_to_match)
        self.matched.applied.connect(self.apply_matched_size)
        self._fill_pickers()
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.task_picker.changed.connect(self._on_task_form)
        # a language model that fine-tunes a model folder: the folder's model is shown, locked
        self.start_from = StartFromModel(controller, [self.picker, self.stack, self.matched], self)
        self.start_from.changed.connect(self._on_start_from)
        self.bidirectional_note = QLabel(BIDIRECTIONAL_NOTE, wordWrap=True)
        self.bidirectional_note.setStyleSheet("color: #8a4b00;")
        self.vocab_label = QLabel(wordWrap=True)
        self.counted = CountedSizes()  # an encoder task's assumed vocabulary and labels
        self.counted.changed.connect(lambda: self._on_form_changed(self.form.config()))
        self.summary_view = ModelSummaryView()
        # the view's parts, as the lessons' highlights and the tests name them
        self.summary_box = self.summary_view
        self.updating, self.stats = self.summary_view.updating, self.summary_view.stats
        self.table, self.card = self.summary_view.table, self.summary_view.card
        self.diagram = self.summary_view.diagram

        left = QVBoxLayout()
        left.addWidget(self.task_picker)
        left.addWidget(self.start_from.note)
        pick_row = QHBoxLayout()
        pick_row.addWidget(QLabel("Architecture:"))
        pick_row.addWidget(self.picker, 1)
        left.addLayout(pick_row)
        left.addWidget(self.stack)
        left.addWidget(self.bidirectional_note)
        left.addWidget(self.vocab_label)
        left.addWidget(self.counted)
        left.addWidget(self.matched)
        left.addStretch(1)
        layout = QHBoxLayout(self)
        left_box = QWidget()
        left_box.setLayout(left)
        left_box.setMaximumWidth(380)
        layout.addWidget(left_box)
        layout.addWidget(self.summary_view, 1)

        given = controller.model_config
        if given is None:  # an LSTM to start with: the usual first model of characters
            with QSignalBlocker(self.picker):
                self.picker.setCurrentIndex(max(self.picker.findData(DEFAULT_ARCH), 0))
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

    def config(self) -> ModelConfig | None:
        """The form's config with the session's vocabulary, or None while it is invalid.
        (An encoder-decoder's two vocabularies come from its task's data when it trains.)"""
        if self.start_from.config is not None:  # the folder's own, vocabulary included
            return self.start_from.config
        config = self.form.config()
        if config is None or config.problems():
            return None
        if "vocab_size" in config.vocab_sizes():
            return dataclasses.replace(config, vocab_size=self.vocab_size())
        return config

    def _counted(self, config: ModelConfig) -> ModelConfig:
        """`config` as counted: the assumed vocabularies, an encoder task's head (counted_sizes);
        a model folder's encoder with its own vocabulary and the task's head."""
        task = self.task_picker.config() or TASK_CONFIGS[self.task]()
        if self.start_from.config is not None and task.encoder_head:
            return task.model_for_counts(config, self.counted.labels.value()) or config
        return self.counted.counted(config, task)

    # --- the task -------------------------------------------------------------------------------

    def _fill_pickers(self) -> None:
        """The architectures that can learn the current task, in both pickers."""
        allowed = architectures_for(self.task)
        for box in (self.picker, self.matched.target):
            current = box.currentData()
            with QSignalBlocker(box):
                box.clear()
                for arch, config_type in allowed.items():
                    box.addItem(config_type.title, arch)
                box.setCurrentIndex(max(box.findData(current), 0))

    def _on_task_form(self, config: TaskConfig | None) -> None:
        if config is None:
            return
        if config.name != self.task:
            self.task = config.name
            self.counted.for_task(config.counted_labels)
            self._fill_pickers()
            self._on_pick(self.picker.currentIndex())
        if config != self.controller.task_config:
            self.controller.set_task_config(config)
        self._on_tokens(self.controller.tokens)
        self.start_from.follow(str(field_values(config).get("start_from", "")), config.name)

    def _on_start_from(self, config: ModelConfig | None) -> None:
        if config is not None:
            self.controller.set_model_config(config)  # shown through _on_session_config
        self._on_tokens(self.controller.tokens)  # the vocabulary line, then the summary

    @Slot(object)
    def _on_session_task(self, config: TaskConfig | None) -> None:
        """A recipe or a run chose a task: show it here."""
        config = config if config is not None else TASK_CONFIGS[DEFAULT_TASK]()
        if self.task_picker.config() != config:
            self.task_picker.set_config(config)
        self.start_from.follow(str(field_values(config).get("start_from", "")), config.name)

    def _on_pick(self, index: int) -> None:
        arch = self.picker.itemData(index)
        if arch is None:
            return
        self.stack.show_form(arch)
        self._on_form_changed(self.form.config())

    def _on_form_changed(self, config: ModelConfig | None) -> None:
        self.stack.fit()  # a problem message under the form makes it taller
        self.bidirectional_note.setVisible(config is not None and config.bidirectional
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
        # greyed and marked: clearly not this model's table
        self.summary_view.set_stale(self.summary is not None and wanted != self._described)

    @Slot(object)
    def _on_session_config(self, config: ModelConfig | None) -> None:
        """Another panel (a recipe, a saved run) chose a model: show it here."""
        if config is None or config.arch not in self.forms:
            return
        form = self.forms[config.arch]
        shown = form.config()
        vocab = config.vocab_sizes()
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
    def _on_tokens(self, tokens: TokenizedCorpus | None) -> None:
        task = TASK_CONFIGS[self.task]
        encoder_task = task.encoder_head
        # (a model folder's vocabulary is its own: its note says how large)
        self.counted.setVisible(encoder_task and task.counts_vocabulary
                                and self.start_from.config is None)
        # (an encoder task's boxes say where its sizes come from; a model folder's note, its)
        self.vocab_label.setVisible((not encoder_task or not task.counts_vocabulary)
                                    and self.start_from.config is None)
        self.vocab_label.setText(vocabulary_text(task, tokens))
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
        shape = config.encoder_config() or config
        seq = min(SUMMARY_SEQ, shape.longest_sequence() or SUMMARY_SEQ)
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

    def _on_failed(self, outcome: JobStopped) -> None:
        self._asked = None
        self.summary_view.set_stale(False)
        self.stats.setText(f"Could not describe the model: {failure_text(outcome)}")

    def _on_summary(self, summary: ModelSummary) -> None:
        config, self._asked, self._described = self._asked, None, self._asked
        self.summary = summary
        self.summary_view.show_summary(summary, config)
        self._mark_stale()

    # --- matched size -----------------------------------------------------------------------------

    def _pair_to_match(self, target_arch: str) -> tuple[ModelConfig, ModelConfig] | None:
        """The model shown and the `target_arch` one, as counted, or None while one is invalid."""
        config, target = self.config(), self.forms[target_arch].config()
        if config is None or target is None or target.problems():
            return None
        if "vocab_size" in target.vocab_sizes():  # the vocabulary of the model matched to
            target = dataclasses.replace(target, vocab_size=self.vocab_size())
        return self._counted(config), self._counted(target)

    def apply_matched_size(self, proposal: MatchedSize) -> None:
        form = self.forms.get(proposal.arch)
        if form is None or form.config() is None:
            return
        form.set_config(dataclasses.replace(form.config(),
                                            **{f: proposal.width for f in proposal.fields}))
        self.picker.setCurrentIndex(self.picker.findData(proposal.arch))
        self._on_form_changed(form.config())
