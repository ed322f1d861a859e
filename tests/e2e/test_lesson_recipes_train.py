"""Every recipe a lesson opens starts training without the divergence guard stopping it
(issue 13: lesson 4's ReLU RNN with U = I starts far above a uniform guess, and the guard
that landed with issue 17 stopped it at step 9-20 three times, so the lesson's Train button
ended in an error). The first 40 steps are where such a start blows up; the whole recipes
are timed by benchmarks/bench_lessons.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.core.events import StepLogged
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.lessons import load_lessons
from workbench.core.resources import resource_path
from workbench.core.training.recipe import load_recipe
from workbench.core.training_loop.recipe_run import recipe_train_steps

STEPS = 40
RECIPES = sorted({str(step.actions["recipe"]) for lesson in load_lessons()[0]
                  for step in lesson.steps if "recipe" in step.actions})


@pytest.mark.slow
@pytest.mark.parametrize("path", RECIPES)
def test_a_lessons_recipe_trains_its_first_steps(path, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    recipe = load_recipe(resource_path(path))  # its own settings: warm-up, rate, guard
    # but one thread: all cores (threads = 0) beside the other test worker and a loaded
    # machine oversubscribed OpenMP, and the tagger's 40 steps ran past 5 minutes
    recipe = replace(recipe, training=replace(recipe.training, threads=1))
    steps = recipe_train_steps(recipe, JobControl(), gui=False)
    reached = 0
    try:  # as the Train button runs it (a UserFacingError is what the student would read)
        for event in steps:
            if isinstance(event, StepLogged):
                reached = event.step
                if reached >= min(STEPS, recipe.training.max_steps):
                    break
    except UserFacingError as exc:
        pytest.fail(f"{path}: {exc}")
    finally:
        steps.close()
    assert reached >= min(STEPS, recipe.training.max_steps)
