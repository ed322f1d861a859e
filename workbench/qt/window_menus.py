"""The main window's menu bar (File, View, Job, Help, and the menus panels add), as a part of
`MainWindow`: opening a corpus from a dialog or the recent files, and the Job menu following
the job runner's state as every other Pause/Stop control does."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QWhatsThis,
    QWidget,
)

from workbench import __version__
from workbench.qt.controller import WorkbenchController
from workbench.qt.recent_files import RecentFiles
from workbench.qt.widgets.checkpoint_open import ask_checkpoint_path, open_checkpoint
from workbench.qt.widgets.corpus_open import ask_corpus_file, ask_corpus_folder


class WindowMenus(QMainWindow):
    """The menu part of `MainWindow`, which sets the controller and recent files these menus
    act on before it builds them."""

    controller: WorkbenchController
    recent: RecentFiles

    def _menu_named(self, title: str):
        for action in self.menuBar().actions():
            if action.menu() is not None and action.text() == title:
                return action.menu()
        menu = _new_menu(self, title)
        self.menuBar().insertMenu(self.help_menu.menuAction(), menu)  # returns the QAction
        return menu

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_file = _action("&Open corpus file…", self, "Ctrl+O")
        open_file.triggered.connect(self.open_corpus_dialog)
        open_folder = _action("Open corpus &folder…", self, "Ctrl+Shift+O")
        open_folder.triggered.connect(self.open_folder_dialog)
        file_menu.addActions([open_file, open_folder])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        open_model = _action("Open &model…", self, "Ctrl+Alt+O")
        open_model.setToolTip("A checkpoint (a run's .json or .safetensors, or a sample model), "
                              "or a file of a Hugging Face GPT-2, Llama or BERT folder, for "
                              "every inspector and console")
        open_model.triggered.connect(self.open_model_dialog)
        file_menu.addAction(open_model)
        export_model = _action("&Export model as Hugging Face folder…", self, "")
        export_model.setToolTip("Write the model the inspectors show as a Hugging Face folder "
                                "of its family: a transformer decoder with GPT-2's or Llama's "
                                "settings, a BERT-shaped masked LM, classifier or tagger")
        export_model.triggered.connect(self.export_model_dialog)
        file_menu.addAction(export_model)
        file_menu.addSeparator()
        quit_action = _action("&Quit", self, "Ctrl+Q")
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        self.view_menu = self.menuBar().addMenu("&View")
        self._panels_in_view_menu = self.view_menu.addSeparator()  # the panels' toggles follow

        job_menu = self.menuBar().addMenu("&Job")
        self.pause_action = _action("&Pause", self, "Ctrl+Shift+P")
        self.pause_action.triggered.connect(self.controller.jobs.toggle_pause)
        self.cancel_action = _action("&Cancel", self, "Ctrl+.")
        self.cancel_action.triggered.connect(self.controller.jobs.cancel)
        job_menu.addActions([self.pause_action, self.cancel_action])
        self.controller.jobs.state_changed.connect(self._on_job_state)
        self._on_job_state(self.controller.jobs.state)

        self.help_menu = self.menuBar().addMenu("&Help")
        # MainWindow connects these two to its help pages and welcome
        self.getting_started_action = started = _action("&Getting started", self, "F1")
        whats_this = QWhatsThis.createAction(self)
        whats_this.setText("&What is this?")
        whats_this.setShortcut(QKeySequence("Shift+F1"))
        self.welcome_action = welcome = QAction("&Welcome…", self)
        about = QAction("&About Sequence Workbench", self)
        about.triggered.connect(self._about)
        self.help_menu.addActions([started, whats_this, welcome])
        self.help_menu.addSeparator()
        self.help_menu.addAction(about)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        if not paths:
            self.recent_menu.addAction("(none yet)").setEnabled(False)
        for path in paths:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_corpus(p))

    @Slot()
    def open_corpus_dialog(self) -> None:
        path = ask_corpus_file(self)
        if path:
            self.open_corpus(path)

    @Slot()
    def open_folder_dialog(self) -> None:
        path = ask_corpus_folder(self)
        if path:
            self.open_corpus(path)

    @Slot()
    def open_model_dialog(self) -> None:
        path = ask_checkpoint_path(self)
        if path:
            self.open_model(path)

    def export_model_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New folder for the Hugging Face model")
        if path:
            self.export_model(path)

    def export_model(self, folder: str) -> bool:
        """Write the session's model as a Hugging Face folder of its family (GPT-2, Llama or
        BERT) off the GUI thread; a model no family's class holds is refused with each
        setting named."""
        snapshot = self.controller.snapshot
        if snapshot is None:
            self.controller.report_error("No model to export: train one or open a checkpoint "
                                         "first (File ▸ Open model).")
            return False
        spec = self.controller.backend.inspection.export_hf_job(snapshot, folder)
        return self.controller.run_query(spec, on_result=lambda path: self.controller.notice.emit(
            f"Written {path}: transformers opens it with from_pretrained (its config.json "
            "names the class)."))

    def open_model(self, path: str) -> bool:
        """Load a checkpoint off the GUI thread; it becomes the session's model, which every
        inspector and console not frozen on another shows. A bad file becomes a message."""
        return open_checkpoint(self.controller, path, self.controller.set_snapshot)

    def open_corpus(self, path: str, **options) -> bool:
        """Open through the controller (the Corpus panel's filter and encoding apply there)
        and remember the path among the recent files."""
        started = self.controller.open_corpus(path, **options)
        if started:
            self.recent.add(path)
        return started

    @Slot(str)
    def _on_job_state(self, state: str) -> None:
        """The Job menu follows the runner's state, as every other Pause/Stop control does."""
        self.pause_action.setText("&Resume" if state == "paused" else "&Pause")
        self.pause_action.setEnabled(state in ("running", "paused"))
        self.cancel_action.setEnabled(state in ("running", "paused"))
    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About Sequence Workbench",
            f"Sequence Workbench {__version__}\n\nTrain, inspect and write with sequence models "
            "of text. Default corpus: Shakespeare (Open Shakespeare / Open Knowledge Foundation).",
        )


def _action(text: str, parent: QWidget, keys: str) -> QAction:
    action = QAction(text, parent)
    action.setShortcut(QKeySequence(keys))
    return action


def _new_menu(parent: QWidget, title: str):
    return QMenu(title, parent)
