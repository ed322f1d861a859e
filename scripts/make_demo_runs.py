"""Short runs of every task into a runs folder, so a screenshot or a walk through the window
shows what a class sees after a session of work: curves of a language model (recurrent and
transformer), a translation, a classifier, a tagger and a masked LM side by side.

    WORKBENCH_RUNS_DIR=/tmp/demo-runs .venv/bin/python scripts/make_demo_runs.py [--steps 120]
        [--only char-lstm ...]

Each shipped recipe below is trained headless for --steps steps (its schedule fitted to those
steps, one thread, a validation every 20 steps), into a new run folder of the runs folder the
app reads (WORKBENCH_RUNS_DIR, or the user's). These runs are for looking at the window, not
for their figures: a few minutes of training on one core.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# one recipe a task, the two language-model families both
RECIPES = ("char-lstm", "char-transformer", "dates-additive", "sentiment-bilstm", "upos-bilstm",
           "mlm-shakespeare")


def train(name: str, steps: int) -> str:
    from workbench.core.events import JobFailed, RunStarted
    from workbench.core.jobs import JobControl, drive
    from workbench.core.resources import resource_path
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    recipe = load_recipe(resource_path("recipes", f"{name}.toml"))
    recipe.training = dataclasses.replace(
        recipe.training, max_steps=steps, minutes=0.0, threads=1, eval_every=20, log_every=5,
        warmup_steps=min(10, recipe.training.warmup_steps), sample_every=0)
    folder = "?"
    for event in drive(_job(lambda control: recipe_train_steps(recipe, control, gui=False)),
                       JobControl()):
        if isinstance(event, RunStarted):
            folder = event.run_dir
        if isinstance(event, JobFailed):
            raise SystemExit(f"{name} failed: {event.message}")
    return folder


def _job(steps):
    from workbench.core.jobs import JobSpec

    return JobSpec("demo run", steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--only", nargs="*", default=None, choices=RECIPES)
    args = parser.parse_args()
    for name in args.only or RECIPES:
        started = time.monotonic()
        folder = train(name, args.steps)
        print(f"{name}: {args.steps} steps in {time.monotonic() - started:.0f} s -> {folder}",
              flush=True)


if __name__ == "__main__":
    main()
