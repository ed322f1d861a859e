"""Seq2seq console: type an input, watch a sequence-to-sequence model write its output.

Greedy decoding streams each token as it is chosen; beam search [NOT IN SEEDS] reports its
leading prefix while it searches and shows the best output at the end. Hover an output token
for its probability, the alternatives at that step and its attention row over the input (the
bars below); the matrix shows every output token's row. Works on the session's latest snapshot
or a checkpoint the user opens, beside training.
"""

from __future__ import annotations

import html
from typing import Any, ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QToolTip,
    QVBoxLayout,
)

from workbench.core.config.seq2seq import Seq2seqDecodeConfig
from workbench.core.events import DecodedToken, Progress
from workbench.core.snapshot import Snapshot
from workbench.qt.panel import Panel
from workbench.qt.widgets.boxes import column, row
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.heatmap import Heatmap, ticks, visible_token
from workbench.qt.widgets.snapshot_source import SnapshotSource
from workbench.qt.widgets.token_stream import TokenStreamView

HINT = ("Hover an output token for its probability, the alternatives and where it looked in "
        "the input. Orange: how unlikely each token was.")


def describe_source(snapshot: Any) -> str:
    if snapshot is None:
        return "No model yet: train a sequence-to-sequence model or open a checkpoint."
    if snapshot.task_name != "seq2seq":
        return f"{snapshot.label} is a language model: see Generate."
    return f"Model: {snapshot.label}"


def describe(token: DecodedToken) -> str:
    alternatives = ", ".join(f"{html.escape(visible_token(t))} {p:.3f}"
                             for t, p in token.alternatives)
    return (f"<b>{html.escape(visible_token(token.text))}</b> p = {token.probability:.3f}"
            f"<br>top: {alternatives}")


def _model_key(snapshot: Snapshot | None) -> tuple[str, str]:
    """What tells two models apart: their run folder (or checkpoint) and name."""
    if snapshot is None:
        return ("", "")
    return (str(snapshot.run_dir), str(snapshot.run_name or snapshot.arch))


class Seq2seqConsolePanel(Panel):
    name: ClassVar[str] = "seq2seq"
    title: ClassVar[str] = "Seq2seq console"
    perspective: ClassVar[str] = "Generate"
    area: ClassVar[str] = "bottom"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.tokens: list[DecodedToken] = []
        self.result: Any = None
        self.source_labels: list[str] = []
        self._decoding = False
        self._dirty = False
        self.source = SnapshotSource(controller, describe_source)
        self.source.changed.connect(self._on_model)
        self._output_model: tuple[str, str] | None = None  # the model the output shown is of
        self.input = QLineEdit("Thursday, March 3rd 2011")
        self.input.setPlaceholderText("Input for the model to read")
        self.input.returnPressed.connect(self.decode)
        self.form = ConfigForm(Seq2seqDecodeConfig)
        self.decode_button = QPushButton("Decode")
        self.decode_button.clicked.connect(lambda _checked=False: self.decode())
        self.stop_button = QPushButton("Stop", enabled=False)
        self.stop_button.clicked.connect(self.controller.queries.cancel)
        self.output = TokenStreamView()
        self.output.hovered.connect(self.show_token)
        self.output.setMinimumHeight(60)
        self.info = QLabel(HINT, wordWrap=True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.row_plot = pg.PlotWidget(background="w")
        self.row_plot.setTitle("attention row α<sub>i</sub> of the hovered token", size="9pt")
        self.row_plot.setMenuEnabled(False)
        self.row_plot.setMouseEnabled(False, False)
        self.matrix = Heatmap("", "input", "output", name="decoded_alignment",
                              on_error=controller.report_error)
        self.matrix.clicked.connect(lambda r, _c: self.show_token(r))
        self.timer = QTimer(self, interval=33)  # the stream redraws at most ~30 times a second
        self.timer.timeout.connect(self._redraw)
        left = column(self.source, QLabel("Input"), self.input, self.form,
                      row(self.decode_button, self.stop_button))
        left.layout().addStretch(1)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.row_plot)
        plots.addWidget(self.matrix)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(column(self.output, self.info))
        right.addWidget(plots)
        right.setSizes([160, 300])
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        controller.queries.event.connect(self._on_event)
        self._show_source()

    # --- the model ----------------------------------------------------------------------------

    @property
    def snapshot(self) -> Any:
        return self.source.snapshot

    def open_checkpoint(self, path: str) -> bool:
        return self.source.open_checkpoint(path)

    @Slot(object)
    def _on_model(self, snapshot: Any) -> None:
        """Another model: the output of the one before goes (lesson 13's console showed the
        previous model's translation beside the new model's name). A newer snapshot of the
        same run keeps it: it is still that run's output."""
        if self._output_model is not None and _model_key(snapshot) != self._output_model \
                and not self._decoding:
            self.clear_output()
        self._show_source()

    def clear_output(self) -> None:
        self.tokens, self.result, self.source_labels = [], None, []
        self._output_model = None
        self.output.show_stream("", [])
        self.matrix.clear("Decode an input to see where each output token looked.")
        self.row_plot.clear()
        self.info.setText(HINT)

    def _show_source(self) -> None:
        self.decode_button.setEnabled(self.snapshot is not None and not self._decoding)

    # --- decoding -----------------------------------------------------------------------------

    def decode(self) -> bool:
        settings = self.form.config()
        if self.snapshot is None or settings is None:
            self.controller.report_error("Nothing to decode with: train a sequence-to-sequence "
                                         "model or open a checkpoint, and fix the settings "
                                         "marked in red.")
            return False
        try:
            spec = self.controller.backend.seq2seq.decode_job(self.snapshot, self.input.text(),
                                                              settings)
        except Exception as exc:  # noqa: BLE001 - a language model, an empty input: say so
            self.controller.report_error(str(exc))
            return False
        if not self.controller.run_query(spec, on_result=self._on_done,
                                         on_error=self._on_stop):
            return False
        self.tokens, self.result, self.source_labels = [], None, []
        self._output_model = _model_key(self.snapshot)
        self._decoding, self._dirty = True, True
        self.decode_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.timer.start()
        return True

    @Slot(object)
    def _on_event(self, event: Any) -> None:
        if self._decoding and isinstance(event, DecodedToken):
            self.tokens.append(event)
            self._dirty = True
        elif self._decoding and isinstance(event, Progress):  # a beam search under way
            self.info.setText(html.escape(event.message))

    def _on_done(self, result: Any) -> None:
        self.result = result
        self.tokens = list(result.tokens)
        self.source_labels = list(result.source_text)
        self._finish()
        alignment = result.alignment
        if alignment.shape[1]:
            self.matrix.set_data(alignment, [t.text for t in self.tokens], self.source_labels,
                                 levels=(0.0, 1.0), title=f"“{html.escape(result.text)}” "
                                 f"({result.strategy}, log p = {result.log_prob:.2f})")
        else:
            self.matrix.plot.setTitle("This model has no attention.")
        if self.tokens:
            self.show_token(len(self.tokens) - 1, tooltip=False)

    def _on_stop(self, _outcome: Any) -> None:
        self._finish()

    def _finish(self) -> None:
        self._decoding = False
        self.timer.stop()
        self._dirty = True
        self._redraw()
        self.stop_button.setEnabled(False)
        self.info.setText(HINT)
        self._show_source()

    def _redraw(self) -> None:
        if self._dirty:
            self._dirty = False
            self.output.show_stream(self.input.text().strip() + "  →  ", self.tokens)

    def output_text(self) -> str:
        return "".join(t.text for t in self.tokens if t.text != "<eos>")

    def show_token(self, index: int, tooltip: bool = True) -> None:
        if not 0 <= index < len(self.tokens):
            return
        token = self.tokens[index]
        self.info.setText(describe(token))
        if tooltip:
            QToolTip.showText(QCursor.pos(), self.info.text(), self.output)
        self.row_plot.clear()
        weights = np.asarray(token.attention, dtype=float)
        if len(weights) and self.source_labels:
            self.row_plot.addItem(pg.BarGraphItem(x=np.arange(len(weights)), height=weights,
                                                  width=0.8, brush="#0072B2"))
            self.row_plot.getAxis("bottom").setTicks([[(x - 0.5, t) for x, t
                                                       in ticks(self.source_labels)]])
            self.row_plot.setYRange(0, 1, padding=0.02)
