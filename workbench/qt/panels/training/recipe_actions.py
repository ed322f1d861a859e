"""The Training panel's recipe and folder actions: open a run directory, open and save
recipes, start a new experiment. An opened recipe only fills the forms: what trains and what is
saved is what the forms say (experiment.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from workbench.core.config.models import MODEL_CONFIGS
from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS
from workbench.core.config.training import TrainingConfig
from workbench.core.jobs import UserFacingError
from workbench.qt.panels.training import experiment
from workbench.qt.widgets.dialog_folders import remember, start_folder


class RecipeActions:
    """Mixed into TrainingPanel (it provides controller, controls, recipe, open_run)."""

    def open_run_dialog(self) -> None:
        root = str(self.controller.backend.training.runs_root())
        path = QFileDialog.getExistingDirectory(self, "Open run directory", root)
        if path:
            self.open_run(path)

    def open_recipe_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open recipe", start_folder("recipe"),
                                              "Recipes (*.toml)")
        if remember("recipe", path):
            self.open_recipe(path)

    def open_recipe(self, path: str) -> bool:
        try:
            recipe = self.controller.backend.training.load_recipe(path)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        self.recipe = recipe
        self._tokens_at_open = self.controller.tokens
        self.controls.form.set_config(recipe.training)
        self.controller.set_task_config(recipe.task)
        self.controller.set_model_config(recipe.model)
        self._describe()
        return True

    def new_experiment(self) -> None:
        """Forget the opened recipe and put the task, model and training forms back to their
        defaults (the corpus stays loaded)."""
        self.recipe = None
        self.controls.form.set_config(TrainingConfig())
        self.controller.set_task_config(TASK_CONFIGS[DEFAULT_TASK]())
        self.controller.set_model_config(MODEL_CONFIGS["lstm"]())
        self._describe()

    # --- the forms against the opened recipe --------------------------------------------------

    def _own_data(self) -> bool:
        """Whether the Corpus panel tokenized other data than the recipe's since it was opened
        (another corpus, or the same with other tokenizer settings)."""
        tokens, corpus = self.controller.tokens, self.controller.corpus
        if self.recipe is None or tokens is None or tokens is self._tokens_at_open:
            return False
        if not self.recipe.corpus_path or corpus is None:
            return True
        try:
            same = (Path(corpus.path).resolve() == self.recipe.corpus_location().resolve()
                    and tokens.config == self.recipe.tokenizer)
        except (OSError, AttributeError):
            same = False
        return not same

    def _task(self):
        return self.controller.task_config or TASK_CONFIGS[DEFAULT_TASK]()

    def recipe_changes(self) -> list[str]:
        """What the forms change in the opened recipe ([] without one, or when unchanged)."""
        if self.recipe is None:
            return []
        return experiment.changes(self.recipe, self._task(), self.model_config(),
                                  self.controls.form.config(), self._own_data())

    def experiment_recipe(self, training):
        """The recipe Train runs: the opened one with the forms' settings, or None when the
        session's tokenized corpus is the data (no recipe, or a language model whose data the
        Corpus panel changed)."""
        task = self._task()
        if self.recipe is None or not experiment.trains_recipe_data(self.recipe, task,
                                                                    self._own_data()):
            return None
        return experiment.experiment_recipe(self.recipe, task, self.model_config(), training,
                                            bool(self.recipe_changes()))

    def save_recipe_dialog(self) -> None:
        start = str(Path(start_folder("saved recipe") or Path.home()) / "recipe.toml")
        path, _ = QFileDialog.getSaveFileName(self, "Save recipe", start, "Recipes (*.toml)")
        if remember("saved recipe", path):
            self.save_recipe(path if path.endswith(".toml") else path + ".toml")

    def save_recipe(self, path: str) -> bool:
        training = self.controller.backend.training
        config = self.controls.form.config()
        try:
            recipe, corpus = self.experiment_recipe(config or TrainingConfig()), None
            if recipe is None:
                corpus = self.controller.corpus
                recipe = training.recipe_of(corpus, self.controller.tokens,
                                            self.model_config(), config,
                                            task=self.controller.task_config)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        return self.controller.run_query(training.save_recipe_job(path, recipe, corpus))
