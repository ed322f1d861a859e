"""The Training panel's recipe and folder actions: open a run directory, open and save
recipes."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from workbench.core.jobs import UserFacingError


class RecipeActions:
    """Mixed into TrainingPanel (it provides controller, controls, recipe, open_run)."""

    def open_run_dialog(self) -> None:
        root = str(self.controller.backend.training.runs_root())
        path = QFileDialog.getExistingDirectory(self, "Open run directory", root)
        if path:
            self.open_run(path)

    def open_recipe_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open recipe", "", "Recipes (*.toml)")
        if path:
            self.open_recipe(path)

    def open_recipe(self, path: str) -> bool:
        try:
            recipe = self.controller.backend.training.load_recipe(path)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        self.recipe = recipe
        self.controls.form.set_config(recipe.training)
        self.controller.set_task_config(recipe.task)
        self.controller.set_model_config(recipe.model)
        self._describe()
        return True

    def save_recipe_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save recipe", "recipe.toml",
                                              "Recipes (*.toml)")
        if path:
            self.save_recipe(path if path.endswith(".toml") else path + ".toml")

    def save_recipe(self, path: str) -> bool:
        training = self.controller.backend.training
        config = self.controls.form.config()
        try:
            if self.recipe is not None:
                recipe, corpus = self.recipe, None
                recipe.training = config or recipe.training
            else:
                corpus = self.controller.corpus
                recipe = training.recipe_of(corpus, self.controller.tokens,
                                            self.model_config(), config,
                                            task=self.controller.task_config)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        return self.controller.run_query(training.save_recipe_job(path, recipe, corpus))
