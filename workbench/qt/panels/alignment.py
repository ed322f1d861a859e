"""Alignment: where a sequence-to-sequence model looks in the input for each output token.

The matrix α (output steps × input positions) of a probe, with token labels on both axes and a
colour bar, refreshed from each snapshot while the model trains. A slider runs over the
snapshots seen so far, so a student watches the alignment sharpen from a blur into the diagonal
(dates: the digits of the year, month and day), or the anti-diagonal of a reversal. Clicking an
output row opens that decoding step: its weights over the input, the context vector and the
most likely next tokens. The RNN decoder shows α of its attention; the transformer its last
layer's cross-attention averaged over heads (the Attention panel has every layer and head).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QLabel, QSlider, QSplitter, QTabWidget

from workbench.core.snapshot import Snapshot
from workbench.qt.inspector import InspectorPanel
from workbench.qt.widgets.heatmap import Heatmap
from workbench.qt.widgets.probe_bar import model_key
from workbench.qt.widgets.seq2seq_cards import SCORES, score_card
from workbench.qt.widgets.step_view import StepView

ALIGNMENT_NOTE = (
    "Row i is output step i, column j input position j: α<sub>ij</sub>, how much of "
    "h<sub>j</sub> goes into the context c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> "
    "h<sub>j</sub> (Bahdanau et al. 2014). Each row sums to 1. A bidirectional encoder's "
    "h<sub>j</sub> also carries its neighbours, so the model may look one position beside the "
    "character it copies.")
MAX_HISTORY = 200  # snapshots kept for the slider (a long run thins out the oldest)


class AlignmentPanel(InspectorPanel):
    name: ClassVar[str] = "alignment"
    title: ClassVar[str] = "Alignment"
    perspective: ClassVar[str] = "Inspect"
    probe_text: ClassVar[str] = ""  # the model's own example, once there is a model
    probe_placeholder: ClassVar[str] = "Input, optionally → the expected output"
    lesson_probes: ClassVar[bool] = False

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.history: list[Any] = []  # Seq2seqTrace per snapshot, oldest first
        self.shown: Any = None
        self._step = 0  # the output step the step view shows
        self._probe_text = ""  # the probe the history's traces read
        self._model: tuple[str, str] = ("", "")  # the run (or checkpoint) they come from
        self.probe_bar.text.setToolTip(
            "What the model reads. Add → and the right output (dates: “3 March 2011 → "
            "2011-03-03”) to see where the model looks while writing the right answer; "
            "without it, the model decodes greedily and you see its own output.")
        self.slider = QSlider(Qt.Orientation.Horizontal, objectName="alignment-slider")
        self.slider.setToolTip("The snapshots seen so far: drag back to watch the alignment "
                               "sharpen as the model trains.")
        self.slider.setEnabled(False)
        self.slider.valueChanged.connect(self._on_slider)
        self.slider_label = QLabel("no snapshot yet")
        self.controls.addWidget(QLabel("Snapshot:"))
        self.controls.addWidget(self.slider, 1)
        self.controls.addWidget(self.slider_label)
        self.heatmap = Heatmap("", "input position j", "output step i", name="alignment",
                               on_error=controller.report_error)
        self.heatmap.clicked.connect(lambda row, _col: self.show_step(row))
        self.step_view = StepView()
        self.card = self.equation_card()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.heatmap)
        split.addWidget(self.step_view)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.tabs = QTabWidget()
        self.tabs.addTab(split, "Alignment and step")
        self.tabs.addTab(self.card, "Equations")
        self.set_body(self.tabs)

    def request(self, snapshot, text):
        return self.controller.backend.seq2seq.probe_job(snapshot, text)

    def example_probe(self, snapshot: Snapshot | None) -> str:
        """The task's example (a date and its rewriting) for a sequence-to-sequence model."""
        if snapshot is None or snapshot.task_name != "seq2seq":
            return ""
        return self.controller.backend.seq2seq.default_probe(snapshot)

    def show_card(self, snapshot: Snapshot | None) -> None:
        """The score card of the attention the traced model has."""
        config = snapshot.model_config if snapshot is not None else {}
        attention = str((config or {}).get("attention", ""))
        card = score_card(attention) if attention in SCORES else score_card_cross()
        self.card.setText(card + f"<hr>{ALIGNMENT_NOTE}")

    # --- traces in ------------------------------------------------------------------------------

    def draw(self, trace: Any) -> None:
        """A probe's trace: kept for the slider; shown if the slider follows the latest. A new
        probe text starts the slider's series again (the snapshots are compared on one probe)."""
        text = self.probe_bar.text.text()
        model = model_key(self.probe_bar.traced_snapshot)
        self.show_card(self.probe_bar.traced_snapshot)
        if text != self._probe_text or model != self._model:
            # the slider compares snapshots of one model on one probe: a new run (the lesson's
            # run without attention after the one with) starts the series again
            self._probe_text, self._model, self.history = text, model, []
        following = not self.history or self.slider.value() == len(self.history) - 1
        if self.history and self.history[-1].step == trace.step:
            self.history[-1] = trace  # the same snapshot probed again (new text)
        else:
            self.history.append(trace)
        if len(self.history) > MAX_HISTORY:
            del self.history[1:3]  # keep the first (the blur) and thin out the early ones
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, len(self.history) - 1)
            self.slider.setEnabled(len(self.history) > 1)
            if following:
                self.slider.setValue(len(self.history) - 1)
        self._on_slider(self.slider.value())

    def _on_slider(self, index: int) -> None:
        if not self.history:
            return
        trace = self.history[min(max(index, 0), len(self.history) - 1)]
        self.slider_label.setText(f"{index + 1} of {len(self.history)}: step {trace.step:,}")
        self.show_alignment(trace)

    def show_alignment(self, trace: Any) -> None:
        self.shown = trace
        alignment = np.asarray(trace.alignment)
        if alignment.shape[1] == 0:
            self.heatmap.set_data(np.full((len(trace.target_text), 1), np.nan),
                                  trace.target_text, ["(no attention)"], levels=(0.0, 1.0),
                                  title="No attention: the decoder sees the input only "
                                        "through its first state s₀")
            self.step_view.clear("This model has no attention to show. Its accuracy by input "
                                 "length (Training panel) shows what that costs.")
            return
        self.heatmap.set_data(alignment, trace.target_text, trace.source_text, levels=(0.0, 1.0),
                              title=f"α<sub>ij</sub> at step {trace.step:,}: output “"
                              f"{''.join(trace.target_text[:-1])[:40]}”")
        self.show_step(min(self._step, len(trace.target_text) - 1))

    def show_step(self, step: int) -> None:
        trace = self.shown
        if trace is None or not np.asarray(trace.alignment).shape[1]:
            return
        self._step = step
        context = trace.contexts[step] if trace.contexts is not None else None
        top = trace.top_tokens[step] if trace.top_tokens else ()
        self.step_view.show_step(step, trace.target_text[step], trace.source_text,
                                 trace.alignment[step], context, top)


def score_card_cross() -> str:
    return ("<b>Cross-attention</b> (Vaswani et al. 2017): Y := LayerNorm(Y + MultiHead("
            "Y W<sub>Q</sub>, X W<sub>K</sub>, X W<sub>V</sub>)); the matrix is the last "
            "decoder layer's weights averaged over its heads. The Attention panel shows each "
            "layer and head.")
