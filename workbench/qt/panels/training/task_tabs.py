"""One tab per task among the runs shown: the curves view plots one task at a time, because
runs of different tasks measure different things. A sentiment classifier's loss is nats per
sentence, a language model's nats per character; a masked LM's perplexity of thousands on the
same axes as a character model's 4 flattens it (issue 31, item 8). Each tab names its task and
how many ticked runs it has; the bar hides itself while all shown runs are of one task."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QTabBar, QWidget

from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS


def task_title(name: str, short: bool = False) -> str:
    config = TASK_CONFIGS.get(name)
    if config is None:
        return name.replace("_", " ").capitalize()
    return (config.short_title if short else "") or config.title


class TaskTabs(QTabBar):
    chosen = Signal(str)  # the user picked a task's tab

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self.setExpanding(False)
        # every task's tab stays in sight, elided in the middle (its name's start and its run
        # count) rather than behind scroll arrows: at 1280 px the fifth task was hidden
        self.setUsesScrollButtons(False)
        self.setElideMode(Qt.TextElideMode.ElideMiddle)
        self.setToolTip("Runs of different tasks are plotted apart: their losses are in "
                        "different units. Pick a task to see its runs' curves.")
        self.tasks: list[str] = []
        self.task = DEFAULT_TASK
        self.currentChanged.connect(self._on_current)
        self.setVisible(False)

    def show_tasks(self, counts: dict[str, int]) -> str:
        """Tabs for `counts` (task -> ticked runs, in order). Keeps the current task when it
        is still there, else takes the first; returns it."""
        tasks = list(counts)
        if tasks and self.task not in tasks:
            self.task = tasks[0]
        with QSignalBlocker(self):
            if tasks != self.tasks:
                while self.count():
                    self.removeTab(0)
                for name in tasks:
                    self.addTab(task_title(name))
                self.tasks = tasks
            for index, name in enumerate(tasks):
                runs = counts[name]
                self.setTabText(index, f"{task_title(name, short=True)} ({runs})")
                self.setTabToolTip(index, f"{task_title(name)}: {runs} ticked "
                                          f"run{'s' if runs > 1 else ''}")
            if self.task in tasks:
                self.setCurrentIndex(tasks.index(self.task))
        self.setVisible(len(tasks) > 1)
        return self.task

    def _on_current(self, index: int) -> None:
        if 0 <= index < len(self.tasks) and self.tasks[index] != self.task:
            self.task = self.tasks[index]
            self.chosen.emit(self.task)
