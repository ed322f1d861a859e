"""The Training panel: settings and controls, live curves, the run list and the sample log.

Training runs as the controller's long job. Its events arrive here on the GUI thread and are
only appended to numpy columns; a ~30 Hz timer redraws what changed, so a fast trainer never
floods the window. Past runs (this machine's runs folder, or any run folder opened) overlay on
the same curves; their data is read by a query, off the GUI thread, when first shown.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from workbench.core.config.models import LstmConfig
from workbench.core.jobs import UserFacingError
from workbench.core.resources import resource_path
from workbench.qt.panel import Panel
from workbench.qt.panels.training.controls import TrainingControls
from workbench.qt.panels.training.curves import CurvesView
from workbench.qt.panels.training.follow_actions import FollowActions, FollowBar
from workbench.qt.panels.training.live_run import LiveRunEvents
from workbench.qt.panels.training.recipe_actions import RecipeActions
from workbench.qt.panels.training.run_actions import NO_RUN, RunListActions
from workbench.qt.panels.training.run_list import RunList
from workbench.qt.panels.training.sample_log import SampleLog
from workbench.qt.panels.training.series import RunSeries

REDRAW_MS = 33  # ~30 redraws a second at most


class TrainingPanel(LiveRunEvents, FollowActions, RunListActions, RecipeActions, Panel):
    name = "training"
    title = "Training"
    area = "bottom"
    menu_title = "&Training"

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.series: dict[str, RunSeries] = {}
        self.live_key = ""
        self.recipe = None  # the recipe the forms were filled from (experiment.py)
        self._tokens_at_open = None  # the session's tokens when it was opened
        self.last_notice = ""  # what the end of the last run said
        self._counter = itertools.count(1)
        self._follow_state: dict[str, dict] = {}  # followed run folder -> what the bar shows
        self.follow_bar = FollowBar()
        self.controls = TrainingControls()
        self.curves = CurvesView(on_error=controller.report_error)
        self.run_list = RunList()
        self.samples = SampleLog()
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.run_list)
        right.addWidget(self.samples)
        right.setSizes([140, 260])
        right.setMinimumWidth(180)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.controls)
        split.addWidget(self.curves)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 840, 200])
        split.setCollapsible(1, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.follow_bar)
        # which run the sample log and this header show: the one selected in the run list
        self.run_header = QLabel(NO_RUN, objectName="run-header", wordWrap=True)
        self.run_header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.run_header)
        layout.addWidget(split, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.curves.redraw)
        self.controls.start_clicked.connect(self.start_training)
        self.controls.pause_clicked.connect(self.toggle_pause)
        self.controls.stop_clicked.connect(self.stop_training)
        self.controls.test_clicked.connect(self.test_selected_run)
        self.run_list.visibility_changed.connect(self._on_visibility)
        self.run_list.renamed.connect(self._on_renamed)
        self.run_list.colour_changed.connect(self._on_colour)
        self.run_list.resume_requested.connect(self.resume_run)
        self.run_list.inspect_requested.connect(self.inspect_checkpoint)
        self.run_list.remove_requested.connect(self._on_removed)
        self.run_list.current_run_changed.connect(self._on_current_run)
        self.run_list.follow_requested.connect(controller.follow_run)
        self.run_list.stop_follow_requested.connect(self.stop_following)
        self.follow_bar.stop_clicked.connect(self.stop_following)
        self.follow_bar.tick.connect(self._show_follow_status)
        controller.follow_event.connect(self._on_follow_event)
        controller.following_changed.connect(self._on_following)
        controller.job_event.connect(self._on_job_event)
        controller.jobs.progress.connect(self._on_progress)
        controller.jobs.busy_changed.connect(self._on_busy)
        controller.jobs.state_changed.connect(self._on_job_state)
        controller.tokens_changed.connect(self._describe)
        controller.model_config_changed.connect(self._describe)
        controller.task_config_changed.connect(self._describe)
        self.controls.form.changed.connect(self._describe)
        controller.lesson_action.connect(self._on_lesson)
        self._list_past_runs()
        self._describe()

    # --- menu ---------------------------------------------------------------------------------

    def menu_actions(self) -> list[QAction]:
        actions = []
        for text, shortcut, slot in (
                ("&Train", "Ctrl+Return", self.start_training),
                ("&Stop training", "Ctrl+Alt+.", self.stop_training),
                ("&Save recipe…", "Ctrl+Alt+S", self.save_recipe_dialog),
                ("&Open recipe…", "Ctrl+Alt+O", self.open_recipe_dialog),
                ("&New experiment (forget the recipe)", "", self.new_experiment),
                ("Open &run directory…", "Ctrl+Alt+D", self.open_run_dialog),
                ("&Follow run folder…", "Ctrl+Alt+F", self.follow_run_dialog),
                ("Stop f&ollowing", "", self.stop_following)):
            action = QAction(text, self, shortcut=QKeySequence(shortcut))
            action.triggered.connect(lambda _=False, slot=slot: slot())
            actions.append(action)
        return actions

    # --- what will be trained -----------------------------------------------------------------

    def model_config(self):
        """The chosen architecture, or a small LSTM when none was chosen yet."""
        return self.controller.model_config or LstmConfig(hidden_size=128)

    @Slot(str, object)
    def _on_lesson(self, action: str, value: object) -> None:
        """A lesson step opens a recipe shipped in resources/ (Train then trains it)."""
        if action == "recipe":
            self.open_recipe(str(resource_path(str(value))))

    def _describe(self, *_: object) -> None:
        tokens, model = self.controller.tokens, self.model_config()
        task = self.controller.task_config
        chosen = "" if self.controller.model_config else " (default; choose one in the model panel)"
        config = self.controls.form.config()
        recipe = self.experiment_recipe(config) if config is not None else None
        if recipe is not None:
            source = (Path(recipe.corpus_path).name + " (the recipe's corpus and tokenizer)"
                      if recipe.corpus_path else recipe.task.title)
            changed = self.recipe_changes()
            origin = (f"Modified from recipe <b>{self.recipe.name}</b> ({'; '.join(changed)})"
                      if changed else f"Recipe <b>{self.recipe.name}</b>")
            text = f"{origin}: {model.title} on {source}"
        elif task is not None and not task.needs_corpus:
            data = task.data_summary()
            text = f"<b>{model.title}</b>{chosen}: {task.title}" + (f", {data}" if data else "")
        elif tokens is None:
            text = "Load and tokenize a corpus first (Corpus panel), or open a recipe."
        else:
            text = (f"<b>{model.title}</b>{chosen} on {tokens.corpus_name or 'the corpus'}: "
                    f"{len(tokens.train):,} training {tokens.tokenizer.kind} tokens, "
                    f"vocabulary {tokens.vocab_size:,}")
        if self.recipe is not None and recipe is None:
            text += (f" (modified from recipe <b>{self.recipe.name}</b>: "
                     f"{'; '.join(self.recipe_changes())})")
        self.controls.what.setText(text)
        if tokens is not None:
            self.curves.set_unit("character" if tokens.tokenizer.kind == "char" else "token")

    # --- starting and steering ----------------------------------------------------------------

    def start_training(self) -> bool:
        if self.controller.jobs.busy:
            self.controller.report_error("Another job is running. Wait for it or stop it first.")
            return False
        config = self.controls.form.config()
        problems = self.controls.form.problems()
        if config is None or problems:
            self.controller.report_error("Training settings: " + " ".join(problems))
            return False
        training = self.controller.backend.training
        try:
            recipe = self.experiment_recipe(config)  # the forms, not the file as read
            if recipe is not None:
                spec = training.recipe_job(recipe)
                name = recipe.name
            else:
                model = self.model_config()
                spec = training.train_job(self.controller.corpus, self.controller.tokens,
                                          model, config,
                                          embedding_init=self.controller.embedding_init,
                                          task=self.controller.task_config)
                name = spec.title.removeprefix("Training ")
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        return self._start(spec, f"pending-{next(self._counter)}", name)

    def resume_run(self, key: str) -> bool:
        config = self.controls.form.config()
        extend_to = config.max_steps if config is not None else None
        spec = self.controller.backend.training.resume_job(key, extend_to=extend_to)
        series = self.series.get(key)
        return self._start(spec, key, series.name if series else Path(key).name)

    def _start(self, spec, key: str, name: str) -> bool:
        if key not in self.series:
            self.series[key] = RunSeries(key, name, self.run_list.next_colour())
            self.run_list.add_run(key, name, self.series[key].colour)
        self.live_key = key
        self.series[key].live = True
        self.run_list.set_live(key, True)
        self._refresh_runs()
        started = self.controller.run_job(spec, on_error=self._on_failed, kind="training")
        if not started:
            self._end_live()
        return started

    def inspect_checkpoint(self, key: str, kind: str = "best") -> bool:
        """Hand a run's checkpoint to the inspectors and the generation console."""
        spec = self.controller.backend.training.checkpoint_snapshot_job(key, kind)
        return self.controller.run_query(spec, on_result=self.controller.set_snapshot)

    def test_selected_run(self) -> bool:
        """Score the selected run's best checkpoint on its test split, in a query (off the GUI
        thread); the figure shows on its loss plot and in the run header."""
        key = self.run_list.current_key()
        if not key or not Path(key).is_dir():
            self.controller.report_error("Select a run in the run list first (one that has "
                                         "trained: its folder holds its checkpoints).")
            return False
        spec = self.controller.backend.training.test_job(key)
        return self.controller.run_query(spec, on_result=functools.partial(self._show_test, key),
                                         caller=f"test:{key}")

    def _show_test(self, key: str, figure) -> None:
        series = self.series.get(key)
        if series is None:
            return
        series.test = figure
        series.version += 1
        self.curves.redraw()
        self.show_header(key)

    def toggle_pause(self) -> None:
        if self.live_key and self.controller.jobs.busy:
            self.controller.jobs.toggle_pause()  # the buttons follow the runner's state

    @Slot(str)
    def _on_job_state(self, state: str) -> None:
        """Pause/Resume/Stop show the job runner's state, whoever changed it (these buttons,
        the status bar, the Job menu or its shortcut)."""
        if self.live_key:
            self.controls.set_running(state != "idle", paused=state == "paused",
                                      stopping=state == "stopping")

    def stop_training(self) -> None:
        if self.live_key and self.controller.jobs.busy:
            self.controller.jobs.cancel()
