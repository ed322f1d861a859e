"""Lessons: guided paths through the app for a class, read from `resources/lessons/*.toml`.

The list on the left holds the lessons in their order with the minutes each takes. The page
on the right shows the goal, the numbered steps (each with a button that sets the app up: it
opens the panel, loads the sample model or recipe, types the probe, and points at the control
to use), what to look at, what the student should see, and the questions. "Next step" walks
the steps in order. A lesson that needs a task this app does not have says so and waits.
"""

from __future__ import annotations

import html
from typing import Any, ClassVar

from PySide6.QtCore import QEvent, Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.models import config_from_dict, config_to_dict
from workbench.core.config.tasks import TASK_CONFIGS
from workbench.core.lessons import Lesson, load_lessons, pretrained_folders
from workbench.core.lessons.setup import step_setup
from workbench.core.resources import resource_path, user_model_folder
from workbench.qt.panel import Panel
from workbench.qt.widgets.checkpoint_open import open_checkpoint
from workbench.qt.widgets.long_text_combo import LongTextCombo
from workbench.qt.widgets.math_text import math_html
from workbench.qt.widgets.model_folder_note import absent_folder_note

HIGHLIGHT_DELAY_MS = 350  # let the panel the step opened lay itself out first
READABLE_CHARACTERS = 110  # the page's widest lines, in average characters of its font


def _paragraph(title: str, text: str) -> str:
    body = math_html(text).replace("\n\n", "</p><p>").replace("\n", " ")
    return f"<p><b>{html.escape(title)}</b></p><p>{body}</p>" if text else ""


class LessonsPanel(Panel):
    name: ClassVar[str] = "lessons"
    title: ClassVar[str] = "Lessons"
    area: ClassVar[str] = "left"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(controller, parent)
        self.lessons, self.problems = load_lessons()
        self.lesson: Lesson | None = None
        self.done: set[int] = set()
        self.step_buttons: list[QPushButton] = []
        self._highlight_target = None
        self._opened: tuple[str, int] = ("", 0)  # the sample model this panel opened last
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.timeout.connect(
            lambda: self.controller.lesson_action.emit("highlight", self._highlight_target))
        # a drop-down rather than a list beside the page: the page needs the dock's width (the
        # box cuts a long title with "…", its tooltip and its list show titles whole)
        self.list = LongTextCombo()
        self.list.setObjectName("lessons-list")
        self.list.setSizeAdjustPolicy(
            LongTextCombo.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.list.setMinimumContentsLength(24)  # long titles must not widen the dock
        for lesson in self.lessons:
            waits = self.missing(lesson)
            text = f"{lesson.order}. {lesson.title} — {lesson.minutes:g} min"
            self.list.addItem(text + (f" (needs {', '.join(waits)})" if waits else ""),
                              lesson.key)
            self.list.setItemData(self.list.count() - 1, lesson.goal,
                                  Qt.ItemDataRole.ToolTipRole)
        self.list.currentIndexChanged.connect(self._show_lesson)
        self.previous_button = QPushButton("◀")
        self.previous_button.setToolTip("The lesson before")
        self.previous_button.setMaximumWidth(44)
        self.previous_button.clicked.connect(lambda: self._move(-1))
        self.following_button = QPushButton("▶")
        self.following_button.setToolTip("The next lesson")
        self.following_button.setMaximumWidth(44)
        self.following_button.clicked.connect(lambda: self._move(1))
        self.file_problems = QLabel("<br>".join(html.escape(p) for p in self.problems))
        self.file_problems.setWordWrap(True)
        self.file_problems.setStyleSheet("color: #b00020;")
        self.file_problems.setVisible(bool(self.problems))
        chooser = QHBoxLayout()
        chooser.addWidget(self.previous_button)
        chooser.addWidget(self.list, 1)
        chooser.addWidget(self.following_button)
        self.page = QWidget()
        self.page_layout = QVBoxLayout(self.page)
        self.header = QLabel()
        self.header.setObjectName("lesson-header")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.steps_box = QWidget()
        self.next_button = QPushButton("Next step ▶")
        self.next_button.setObjectName("lesson-next")
        self.next_button.clicked.connect(self.next_step)
        self.footer = QLabel()
        self.footer.setObjectName("lesson-footer")
        self.footer.setWordWrap(True)
        self.footer.setTextFormat(Qt.TextFormat.RichText)
        for widget in (self.header, self.steps_box, self.next_button, self.footer):
            self.page_layout.addWidget(widget)
        self.page_layout.addStretch(1)
        self.scroller = scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setWidget(self.page)
        layout = QVBoxLayout(self)
        layout.addLayout(chooser)
        layout.addWidget(self.file_problems)
        layout.addWidget(scroller, 1)
        self._margins = layout.contentsMargins()
        if self.lessons:
            self._show_lesson(0)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_width()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a zoom: the readable width changes
            self._fit_width()

    def _fit_width(self) -> None:
        """Lines of a readable length: alone in a wide window (before a step opens its
        panels) the page ran 1900 px wide at 1920 × 1080, each step's Set up button a screen
        away from its text. Wider than READABLE_CHARACTERS, the page is centred."""
        spare = self.width() - READABLE_CHARACTERS * self.fontMetrics().averageCharWidth()
        side = max(0, spare // 2)
        m = self._margins
        self.layout().setContentsMargins(m.left() + side, m.top(), m.right() + side, m.bottom())

    # --- which lesson ------------------------------------------------------------------------

    @staticmethod
    def missing(lesson: Lesson) -> list[str]:
        """The tasks a lesson needs that this app does not have (yet)."""
        return [need for need in lesson.needs if need not in TASK_CONFIGS]

    @staticmethod
    def absent_folders(lesson: Lesson) -> list[str]:
        """The model folders a lesson opens that this machine does not have (a classroom
        copies them in: no model is downloaded)."""
        return [name for name in pretrained_folders(lesson)
                if not (user_model_folder(name) / "config.json").is_file()]

    def choose(self, key: str) -> None:
        index = self.list.findData(key)
        if index < 0:
            raise KeyError(key)
        self.list.setCurrentIndex(index)

    def _move(self, by: int) -> None:
        index = self.list.currentIndex() + by
        if 0 <= index < self.list.count():
            self.list.setCurrentIndex(index)

    @Slot(int)
    def _show_lesson(self, row: int) -> None:
        if not 0 <= row < len(self.lessons):
            return
        self.lesson = lesson = self.lessons[row]
        self.done.clear()
        self.header.setText(f"<h2>{html.escape(lesson.title)}</h2>"
                            f"<p><i>About {lesson.minutes:g} minutes.</i></p>"
                            + _paragraph("Goal", lesson.goal))
        self.step_buttons = []
        # a fresh box for the steps: rows of a reused grid keep their old heights
        box = QWidget()
        grid = QGridLayout(box)
        grid.setColumnStretch(1, 1)
        self.page_layout.replaceWidget(self.steps_box, box)
        self.steps_box.setParent(None)
        self.steps_box.deleteLater()
        self.steps_box = box
        waits, absent = self.missing(lesson), self.absent_folders(lesson)
        for index, step in enumerate(lesson.steps):
            number = QLabel(f"<b>{index + 1}.</b>")
            text = QLabel(math_html(step.do))
            text.setTextFormat(Qt.TextFormat.RichText)
            text.setWordWrap(True)
            button = QPushButton("Set up" if step.actions else "Done")
            button.setObjectName(f"lesson-step-{index + 1}")
            button.setEnabled(not waits and not absent)
            button.clicked.connect(lambda _=False, i=index: self.run_step(i))
            grid.addWidget(number, index, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(text, index, 1)
            grid.addWidget(button, index, 2, Qt.AlignmentFlag.AlignTop)
            self.step_buttons.append(button)
        self.next_button.setEnabled(not waits and not absent)
        self.previous_button.setEnabled(row > 0)
        self.following_button.setEnabled(row < len(self.lessons) - 1)
        questions = "".join(f"<li>{math_html(q)}</li>" for q in lesson.questions)
        wait_note = (f"<p style='color:#9a6700'>This lesson needs {', '.join(waits)}, which "
                     "this version of the app does not have yet.</p>" if waits else "")
        wait_note += "".join(absent_folder_note(name) for name in absent)
        self._to_top()
        self.footer.setText(
            wait_note + _paragraph("What to look at", lesson.look)
            + _paragraph("What you should see", lesson.expect)
            + (f"<p><b>Questions</b></p><ol>{questions}</ol>" if questions else "")
            + (f"<p style='color:#555'><small>Sources: {html.escape(lesson.sources)}"
               "</small></p>" if lesson.sources else ""))

    def _to_top(self) -> None:
        """A new lesson opens at its title: it opened at the old lesson's scroll position
        (this page's scroll area, and the dock's around the panel)."""
        area: Any = self.scroller
        while area is not None:
            if isinstance(area, QScrollArea):
                area.verticalScrollBar().setValue(0)
            area = area.parentWidget()

    # --- steps -------------------------------------------------------------------------------

    def next_step(self) -> int | None:
        """Run the first step not done yet; returns its index (None when all are done)."""
        if self.lesson is None:
            return None
        index = next((i for i in range(len(self.lesson.steps)) if i not in self.done), None)
        if index is not None:
            self.run_step(index)
        return index

    def run_step(self, index: int) -> None:
        """Set the app up for step `index` whole (the state the steps before it set too, so
        nothing is left from another lesson: core/lessons/setup.py), then point at its
        control."""
        step = self.lesson.steps[index]
        setup = step_setup(self.lesson, index)
        if step.panels:
            self.controller.lesson_action.emit("panels", step.panels)
        for action, value in setup.items():
            if action in ("highlight", "panel"):
                continue
            if action == "checkpoint":
                self._open_model(str(resource_path(str(value))))
            elif action == "pretrained":
                self._open_model(str(user_model_folder(str(value))))
            elif action == "model":
                self.controller.set_model_config(self._model_config(dict(value)))
            elif action == "task":
                self._use_task(str(value))
            elif action == "recipe" and action not in step.actions \
                    and self.controller.job_kind == "training":
                continue  # the recipe a student is training now: reopening it changes nothing
            else:
                self.controller.lesson_action.emit(action, value)
        # one pending highlight: a quick click on the next step must not have the last one's
        # control (and its panel) pop up after the next step arranged its own panels
        self._highlight_target = step.actions.get("highlight")
        self._highlight_timer.stop()
        if self._highlight_target:
            self._highlight_timer.start(HIGHLIGHT_DELAY_MS)
        self.done.add(index)
        self.step_buttons[index].setText("Again ✓" if step.actions else "Done ✓")

    def _open_model(self, path: str) -> None:
        """Load a sample model (queued after a probe of the step before that may still run);
        one this panel opened and the session still shows is not loaded again."""
        shown = self.controller.snapshot
        if shown is not None and self._opened == (path, id(shown)):
            return
        open_checkpoint(self.controller, path, lambda snapshot: self._use_model(snapshot, path))

    def _use_task(self, name: str) -> None:
        """The step's task, with its default settings when it is not the session's task."""
        current = self.controller.task_config
        if current is None or current.name != name:
            self.controller.set_task_config(TASK_CONFIGS[name]())

    def _model_config(self, settings: dict) -> Any:
        """The step's model: its settings over the current model's when the architecture is
        the same (or not named), over the architecture's defaults otherwise."""
        current = self.controller.model_config
        if current is not None and settings.get("arch", current.arch) == current.arch:
            settings = {**config_to_dict(current), **settings}
        return config_from_dict(settings)

    def _use_model(self, snapshot: Any, path: str = "") -> None:
        """A step's sample model becomes the session's: every inspector and the console look
        at it, even those a student froze on another one."""
        self._opened = (path, id(snapshot))
        self.controller.set_snapshot(snapshot)
        self.controller.lesson_action.emit("snapshot", snapshot)

