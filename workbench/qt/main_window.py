"""The main window: dockable panels, menus with shortcuts, status bar with the current job."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import QSettings, Qt, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMessageBox,
    QScrollArea,
    QWidget,
)

from workbench.qt.controller import WorkbenchController
from workbench.qt.gui_thread_gc import GuiThreadCollector
from workbench.qt.help import HelpPage, Welcome, wants_welcome, whats_this_html
from workbench.qt.job_status import JobStatusWidget
from workbench.qt.panel import AREAS, Panel
from workbench.qt.recent_files import RecentFiles
from workbench.qt.widgets.boxes import row
from workbench.qt.widgets.spotlight import Spotlight, find_control, reveal
from workbench.qt.window_layout import WindowLayout
from workbench.qt.window_menus import WindowMenus

# Errors shown to the user also go to stderr, so a terminal, a log or the installer check
# (packaging/check_linux.py looks for this prefix) sees them.
SHOWN_ERROR_PREFIX = "Shown to the user:"
_LOG = logging.getLogger(__name__)


class MainWindow(WindowMenus):
    def __init__(
        self,
        controller: WorkbenchController,
        panel_types: Sequence[type[Panel]],
        settings: QSettings | None = None,
    ) -> None:
        super().__init__()
        # Cycle collection on the GUI thread only, and cheap: see gui_thread_gc.py.
        self.collector = GuiThreadCollector(self)
        self.controller = controller
        self.settings = settings or QSettings()
        self.recent = RecentFiles(self.settings)
        self._closing = False  # asked and answered: the window is closing
        self.setWindowTitle("Sequence Workbench")
        self.setObjectName("main-window")
        self.setDockNestingEnabled(True)
        self.panels: dict[str, Panel] = {}
        self.help_page: HelpPage | None = None
        self.welcome: Welcome | None = None
        self.docks: dict[str, QDockWidget] = {}
        self.setCentralWidget(QWidget())
        self.centralWidget().hide()  # docks fill the window
        self._build_menus()
        self.getting_started_action.triggered.connect(self.show_getting_started)
        self.welcome_action.triggered.connect(lambda: self.show_welcome(force=True))
        for panel_type in panel_types:
            self.add_panel(panel_type(controller))
        self.job_status = JobStatusWidget(controller.jobs)
        self.corpus_label = QLabel("No corpus", objectName="status-corpus")
        self.corpus_label.setToolTip("The corpus the next run trains on")
        # a rule between the corpus and the job state: side by side they read as one phrase
        # ("shakespeare-small Ready"); messages show left of both, never over them. One
        # permanent item for the three: styles that frame each status-bar item (Windows) drew
        # a frame's edge left of the corpus label and around the rule, three lines for one
        self.status_rule = QFrame(frameShape=QFrame.Shape.VLine,
                                  frameShadow=QFrame.Shadow.Sunken)
        self.status_area = row(self.corpus_label, self.status_rule, self.job_status)
        self.statusBar().addPermanentWidget(self.status_area)
        controller.error.connect(self._show_error)
        controller.notice.connect(self._show_notice)
        controller.corpus_changed.connect(self._on_corpus)
        controller.lesson_action.connect(self._on_lesson)
        self.spotlight = Spotlight(self)
        self._restore_layout()

    # --- panels -------------------------------------------------------------------------------

    def add_panel(self, panel: Panel) -> None:
        dock = QDockWidget(panel.title, self)
        dock.setObjectName(f"dock-{panel.name}")
        # A scroll area keeps one panel's minimum size from forcing the whole window wider
        # than the screen; the panel still gets all the room the dock has.
        scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setWidget(panel)
        dock.setWidget(scroller)
        self.addDockWidget(AREAS[panel.area], dock)
        self.panels[panel.name] = panel
        self.docks[panel.name] = dock
        text = whats_this_html(panel.name)  # Help ▸ What is this? (Shift+F1), then a click
        panel.setWhatsThis(text)
        dock.setWhatsThis(text)
        self.view_menu.addAction(dock.toggleViewAction())  # after perspectives and zoom
        actions = panel.menu_actions()
        if actions:
            menu = self._menu_named(panel.menu_title or panel.title)
            for action in actions:
                menu.addAction(action)

    def show_panel(self, name: str, front: bool = True) -> None:
        """Show panel `name` (in front of its tab group unless `front` is False); one the
        current perspective does not hold joins it tabbed with its main panels."""
        dock = self.docks[name]
        if dock.isHidden() and not dock.isFloating():
            self.perspectives.join(name)
        dock.show()
        if front:
            dock.raise_()

    def show_followed_runs(self, chosen_perspective: bool) -> None:
        """Where `--follow` shows a run's curves: in the Model & training perspective, or,
        when the user chose a perspective, on a Training tab behind its main panels."""
        if not chosen_perspective:
            self.perspectives.switch("Model & training")
        self.show_panel("training", front=not chosen_perspective)

    @Slot(str, object)
    def _on_lesson(self, action: str, value: object) -> None:
        if action == "panels" and value:
            self.show_lesson_panels(tuple(value))
        elif action == "highlight":
            self.highlight(str(value))
        elif action == "tab":
            self.show_tab(str(value))

    def show_tab(self, target: str) -> QWidget | None:
        """Switch the tabs of panel:control's panel so that the control shows (a lesson's
        step: the heatmap to click, not an empty Computation tab left from before)."""
        name, _, control = target.partition(":")
        panel = self.panels.get(name)
        widget = find_control(panel, control) if panel is not None else None
        if widget is not None:
            reveal(widget)
        return widget

    def show_lesson_panels(self, names: tuple[str, ...]) -> None:
        """The Lessons panel beside `names` (the last in front), every other panel closed;
        without a Lessons panel, the named panels are shown where they are."""
        names = tuple(n for n in names if n in self.docks)
        if not names:
            return
        if "lessons" not in self.docks or not self.perspectives.focus("Lessons", names,
                                                                      names[-1]):
            for name in names:
                self.show_panel(name)

    def show_lessons(self) -> None:
        """The Lessons perspective (the welcome's "Start the lessons")."""
        if not self.perspectives.switch("Lessons"):
            self.show_panel("lessons")

    def highlight(self, target: str) -> QWidget | None:
        """Show the panel of `target` ("panel:control"), bring the control into view and
        blink a frame around it; returns the control (None if there is no such thing)."""
        name, _, control = target.partition(":")
        panel = self.panels.get(name)
        if panel is None:
            return None
        self.show_panel(name)
        widget = find_control(panel, control)
        if widget is not None:
            reveal(widget)
            self.spotlight.show_on(widget)
        return widget

    @Slot()
    def show_getting_started(self) -> HelpPage:
        if self.help_page is None:
            self.help_page = HelpPage(list(self.panels), self)
        self.help_page.show()
        self.help_page.raise_()
        return self.help_page

    def show_welcome(self, force: bool = False) -> Welcome | None:
        """The first-start welcome (the app calls it once the window shows); `force` shows it
        even when the student unticked "Show this at start"."""
        if not force and not wants_welcome(self.settings):
            return None
        lessons = self.show_lessons if "lessons" in self.panels else None
        self.welcome = Welcome(self.settings, lessons, self.show_getting_started, self)
        self.welcome.show()
        return self.welcome

    # --- messages -----------------------------------------------------------------------------

    @Slot(str, str)
    def _show_error(self, message: str, detail: str) -> None:
        _LOG.error("%s %s%s", SHOWN_ERROR_PREFIX, message, f"\n{detail}" if detail else "")
        self.statusBar().showMessage(message, 15_000)
        box = QMessageBox(QMessageBox.Icon.Warning, "Sequence Workbench", message, parent=self)
        if detail:
            box.setDetailedText(detail)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()  # never exec(): a modal loop would block the job events behind it

    @Slot(str)
    def _show_notice(self, text: str) -> None:
        self.statusBar().showMessage(text, 15_000)

    @Slot(object)
    def _on_corpus(self, corpus) -> None:
        self.corpus_label.setText(corpus.name if corpus is not None else "corpus loaded")

    # --- layout -------------------------------------------------------------------------------

    def _restore_layout(self) -> None:
        """Size, perspective and zoom as the user left them (window_layout.py)."""
        self.layout_manager = WindowLayout(self, self.settings)
        self.layout_manager.add_to(self.view_menu, self._panels_in_view_menu)
        self.perspectives = self.layout_manager.perspectives
        self.zoom = self.layout_manager.zoom
        self.layout_manager.restore()

    @Slot()
    def reset_layout(self) -> None:
        self.perspectives.reset()

    def confirm_close(self) -> bool:
        """Ask before quitting while a job runs (training, word vectors, a corpus load)."""
        runner = self.controller.jobs
        text = (f"<b>{runner.title}</b> is running. Stop it and quit?<br><br>"
                "A stopped training run keeps its latest checkpoint: resume it from the "
                "Training panel's run list.")
        if runner.stop_note:
            text += f"<br><br>{runner.stop_note}"
        answer = QMessageBox.question(
            self, "Quit Sequence Workbench", text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if self.controller.jobs.busy and not self._closing and not self.confirm_close():
            event.ignore()
            return
        self._closing = True
        self.layout_manager.save()
        self.settings.sync()  # before the shutdown: a thread given up on ends the process
        self.hide()  # the job stops within a step; no frozen window while it does
        self.controller.shutdown()
        self.collector.stop()
        super().closeEvent(event)
