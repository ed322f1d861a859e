"""The base of every inspector panel: a probe bar on top, controls, the views, an equation card.

An inspector reads a probe through a snapshot (never the live model) and draws what the trace
holds. What differs between inspectors is only what they ask and what they draw, so a subclass
sets a few class attributes and writes `draw`:

    class GatesPanel(InspectorPanel):
        name, title = "gates", "Gates"
        gradients = False                      # ask for ∂L/∂h_t too? (costs a backward pass)

        def __init__(self, controller, parent=None):
            super().__init__(controller, parent)
            self.layer_box = self.add_choice("Layer")     # a labelled combo box in the row
            self.set_body(some_widget)                    # the views, below the controls

        def draw(self, trace):                            # a core Trace (numpy only)
            ...

`request(snapshot, text)` asks the backend for the probe (override it for an inspector that
asks something else: a seq2seq model's alignment, a task model's answer, which `draw` then
gets instead of a Trace); the base queues it under the caller name "inspector:<name>", so a
newer probe of this inspector replaces an older one still waiting. The task inspectors
(Alignment, Tagging, Classify, Fill in the blank) set `probe_text` and `probe_placeholder` to
their own example, `lesson_probes = False` (a lesson's line of the play is no date to rewrite
or sentence to tag), and `example_probe(snapshot)` where the example depends on the model.
`add_line(widget)` puts a widget (a summary, a second input) between the controls and the
views. `show_message` tells the user why there is nothing to draw ("no recurrent layers").
`equation_card(html)` makes the rich-text card the inspectors show next to their plots.
"""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from workbench.core.jobs import JobSpec
from workbench.core.snapshot import Snapshot
from workbench.core.trace import Trace
from workbench.qt.panel import Panel
from workbench.qt.widgets.probe_bar import DEFAULT_PROBE, ProbeBar


class InspectorPanel(Panel):
    area: ClassVar[str] = "right"
    gradients: ClassVar[bool] = False  # whether the probe also computes gradient norms
    probe_text: ClassVar[str] = DEFAULT_PROBE  # what the probe box holds at first
    probe_placeholder: ClassVar[str] = "Probe text"
    lesson_probes: ClassVar[bool] = True  # a lesson's probe (a line of the play) is typed here

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.trace: Any = None  # the last probe's result: a Trace, or a task's answer
        self.probe_bar = ProbeBar(controller, self.request, self.probe_text,
                                  self.probe_placeholder, caller=f"inspector:{self.name}",
                                  lesson_probes=self.lesson_probes, example=self.example_probe)
        self.probe_bar.result_ready.connect(self.show_trace)
        self.controls = QHBoxLayout()
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #8a4b00")
        self.message.hide()
        self._layout = QVBoxLayout(self)
        self._layout.addWidget(self.probe_bar)
        self._layout.addLayout(self.controls)
        self._layout.addWidget(self.message)

    # --- what a subclass provides -------------------------------------------------------------

    def request(self, snapshot: Snapshot, text: str) -> JobSpec[Any]:
        """The probe to run on `snapshot` (raises UserFacingError for a text it cannot read,
        or a model it cannot show)."""
        return self.controller.backend.inspection.probe_job(snapshot, text,
                                                            gradients=self.gradients)

    def example_probe(self, snapshot: Snapshot) -> str:
        """What to probe `snapshot` with when the box is empty ("" = nothing)."""
        return ""

    def draw(self, trace: Any) -> None:
        """Draw a probe's result (`self.trace` is already this result)."""
        raise NotImplementedError

    def show_trace(self, trace: Trace | Any) -> None:
        """Show a probe's result: the probe bar calls this with each one (tests may too)."""
        self.trace = trace
        self.show_message("")
        self.draw(trace)

    # --- building blocks ----------------------------------------------------------------------

    def add_choice(self, label: str, items: tuple[str, ...] = ()) -> QComboBox:
        """A labelled combo box in the controls row; it takes a share of the spare width."""
        box = QComboBox()
        box.addItems(list(items))
        self.controls.addWidget(QLabel(label))
        self.controls.addWidget(box, 1)
        return box

    def add_line(self, widget: QWidget) -> QWidget:
        """A widget between the controls and the views, at the height it needs."""
        self._layout.insertWidget(self._layout.indexOf(self.message), widget)
        return widget

    def set_body(self, widget: QWidget) -> None:
        """The inspector's views, given all the height left."""
        self._layout.addWidget(widget, 1)

    @staticmethod
    def equation_card(html: str = "") -> QLabel:
        card = QLabel(html)
        card.setWordWrap(True)
        card.setTextFormat(Qt.TextFormat.RichText)
        card.setAlignment(Qt.AlignmentFlag.AlignTop)
        return card

    @staticmethod
    def refill(box: QComboBox, items: list[str]) -> None:
        """Replace a combo box's items, keeping the chosen one where it still exists (by text,
        else by position), without sending change signals on the way."""
        text, index = box.currentText(), box.currentIndex()
        with QSignalBlocker(box):
            box.clear()
            box.addItems(items)
            if text in items:
                box.setCurrentIndex(items.index(text))
            elif items:
                box.setCurrentIndex(min(max(index, 0), len(items) - 1))

    def show_message(self, text: str) -> None:
        """Say why the views show nothing (or nothing new); empty hides the line."""
        self.message.setText(text)
        self.message.setVisible(bool(text))

    @property
    def snapshot(self) -> Snapshot | None:
        """The snapshot this inspector looks at (the latest, a frozen or an opened one)."""
        return self.probe_bar.snapshot
