"""Lessons: the machine time of each shipped lesson, against the minutes it promises (issue 13).

Run: `.venv/bin/python -m benchmarks.bench_lessons [--only KEY]` (headless, all cores).

A lesson's time is the student's reading and clicking plus what the machine does for its steps.
This measures the second part as a student's laptop would do it: every recipe a step opens is
trained to its end exactly as the Train button does (the recipe's own steps, threads and data,
into a temporary runs folder), and every sample model or word-vector file a step opens is
loaded. The steps that only show a panel, type a probe or pick a worked example take
milliseconds and are not timed. The table gives, per lesson, the seconds of machine work and
how much of the lesson's stated minutes that leaves for reading.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from workbench.core.jobs import JobControl, run_to_end
from workbench.core.lessons import load_lessons
from workbench.core.resources import resource_path


def train_recipe(path: str) -> float:
    """Seconds to train a lesson's recipe to its last step, headless."""
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    recipe = load_recipe(resource_path(path))
    start = time.perf_counter()
    run_to_end(recipe_train_steps(recipe, JobControl(), gui=False))
    return time.perf_counter() - start


def load_model(path: str) -> float:
    from workbench.core.training.checkpoints import load_checkpoint

    start = time.perf_counter()
    load_checkpoint(resource_path(path))  # a folder means its latest checkpoint
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="the key of one lesson (its file name without .toml)")
    args = parser.parse_args()
    lessons, problems = load_lessons()
    if problems:
        raise SystemExit("\n".join(problems))
    rows = []
    with tempfile.TemporaryDirectory(prefix="wb-lessons-") as runs:
        os.environ["WORKBENCH_RUNS_DIR"] = runs
        print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        for lesson in lessons:
            if args.only and lesson.key != args.only:
                continue
            seconds, work = 0.0, []
            for step in lesson.steps:
                if "recipe" in step.actions:
                    took = train_recipe(str(step.actions["recipe"]))
                    work.append(f"train {step.actions['recipe'].split('/')[-1]} {took:.0f} s")
                    seconds += took
                if "checkpoint" in step.actions:
                    took = load_model(str(step.actions["checkpoint"]))
                    work.append(f"open {step.actions['checkpoint'].split('/')[-1]}")
                    seconds += took
            rows.append((lesson, seconds, work))
            print(f"  {lesson.key}: {seconds:.1f} s ({'; '.join(work) or 'no machine work'})",
                  flush=True)
        print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    print("| lesson | stated minutes | machine work (s) | left for reading (min) | work |")
    print("|---|---|---|---|---|")
    for lesson, seconds, work in rows:
        print(f"| {lesson.order}. {lesson.title} | {lesson.minutes:g} | {seconds:.0f} | "
              f"{lesson.minutes - seconds / 60:.1f} | {'; '.join(work) or '-'} |")


if __name__ == "__main__":
    main()
