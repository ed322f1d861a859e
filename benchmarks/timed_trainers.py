"""The two trainers of bench_nanogpt, each run in its own process and saving its model at
fixed moments of wall time (issue 18, item 1).

    python -m benchmarks.timed_trainers workbench RECIPE OUT MARKS_S [--steps N]
    python -m benchmarks.timed_trainers nanogpt NANOGPT_DIR DATA_DIR OUT MARKS_S [--fit-seconds S]
        [ARG ...]

MARKS_S is a comma-separated list of seconds. The clock starts just before training starts
(the workbench's corpus loading and tokenizing, nanoGPT's model building count against them).
At the first clock reading after each mark the model's weights go to OUT/mark-K.pt with the
step it had reached; after the last mark the process stops. The parent pins the process to
one core; here torch is told to use one thread.

The workbench side is the headless trainer on the recipe as shipped (with one thread), its
model caught as the trainer builds it; the clock is read after every event (a logged step,
every `log_every` steps). nanoGPT's `train.py` runs unmodified in this process: its loop reads
`time.time()` right after every optimizer step, and that is where its model is saved (the
clock is wrapped, the trainer's code is not touched). With `--fit-seconds S` its schedule is
fitted to S seconds the way the workbench's `minutes` fits its own: at every clock reading its
cosine decay is set to end (`lr_decay_iters`) at the iteration it will reach after S seconds at
the speed it has had so far, evaluations included, and it runs until the last mark.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import time
from pathlib import Path

import torch


class Marks:
    """Which marks have passed; saves once per mark."""

    def __init__(self, marks_s: list[float], out: Path) -> None:
        self.marks = sorted(marks_s)
        self.out = out
        self.start = time.perf_counter()
        self.saved = 0

    def due(self) -> bool:
        return (self.saved < len(self.marks)
                and time.perf_counter() - self.start >= self.marks[self.saved])

    def save(self, payload: dict) -> None:
        elapsed = time.perf_counter() - self.start
        payload = {**payload, "elapsed_s": elapsed, "mark_s": self.marks[self.saved]}
        # written whole, then renamed: a scorer may be waiting for the file
        torch.save(payload, self.out / f"mark-{self.saved}.pt.tmp")
        os.replace(self.out / f"mark-{self.saved}.pt.tmp", self.out / f"mark-{self.saved}.pt")
        print(json.dumps({k: v for k, v in payload.items() if k in (
            "step", "elapsed_s", "mark_s")}), flush=True)
        self.saved += 1

    @property
    def done(self) -> bool:
        return self.saved == len(self.marks)


def train_workbench(recipe_path: str, out: Path, marks_s: list[float], steps: int) -> None:
    import dataclasses

    from workbench.core.config.models import config_to_dict
    from workbench.core.events import StepLogged
    from workbench.core.jobs import JobCancelledError, JobControl
    from workbench.core.models import build_model
    from workbench.core.training.evaluation import ModelHooks
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    recipe = load_recipe(recipe_path)
    training = dataclasses.replace(recipe.training, threads=1)
    if steps:
        training = dataclasses.replace(training, max_steps=steps)
    recipe.training = training
    built = []
    defaults = ModelHooks.default()
    hooks = ModelHooks(lambda config: built.append(build_model(config)) or built[-1],
                       defaults.snapshot)
    control, step = JobControl(), 0
    (out / "run").mkdir()
    marks = Marks(marks_s, out)
    try:
        for event in recipe_train_steps(recipe, control, out / "run", hooks=hooks, gui=False):
            if isinstance(event, StepLogged):
                step = event.step
            while built and marks.due():  # a mark passed while the corpus loaded waits
                model = built[-1]
                marks.save({"state": model.state_dict(), "config": config_to_dict(model.config),
                            "step": step})
            if marks.done:
                control.stop()
    except JobCancelledError:  # stopped after the last mark
        return
    while not marks.done:  # the recipe's steps ended first: its last model counts for later marks
        model = built[-1]
        marks.save({"state": model.state_dict(), "config": config_to_dict(model.config),
                    "step": step})


class _MarksDoneError(Exception):
    """Raised from the clock after the last mark: ends nanoGPT's loop."""


def train_nanogpt(nanogpt: Path, data_dir: Path, out: Path, marks_s: list[float],
                  args: list[str], fit_seconds: float = 0.0) -> None:
    """nanoGPT's train.py as is, run from a scratch folder holding the prepared data (it reads
    data/<dataset>/ and configurator.py relative to the working directory)."""
    work = out / "work"
    (work / "data").mkdir(parents=True)
    shutil.copytree(data_dir, work / "data" / data_dir.name)
    shutil.copy(nanogpt / "configurator.py", work / "configurator.py")
    os.chdir(work)
    sys.path.insert(0, str(nanogpt))
    train_py = str(nanogpt / "train.py")
    real_time = time.time
    marks = None

    def clock() -> float:
        caller = sys._getframe(1)
        if marks is not None and caller.f_code.co_filename == train_py:
            names = caller.f_globals
            iters = int(names.get("iter_num", 0))
            if fit_seconds and iters >= 10:  # the speed so far, model building included
                elapsed = time.perf_counter() - marks.start
                names["lr_decay_iters"] = max(names["warmup_iters"] + 1,
                                              round(iters * fit_seconds / elapsed))
                names["max_iters"] = 10**9  # the last mark ends it
            while "raw_model" in names and marks.due():
                model = names["raw_model"]
                marks.save({"state": model.state_dict(),
                            "model_args": dict(names["model_args"]),
                            "step": int(names["iter_num"]) + 1})
            if marks.done:
                raise _MarksDoneError
        return real_time()

    sys.argv = [train_py, str(nanogpt / "config" / "train_shakespeare_char.py"),
                f"--dataset={data_dir.name}", f"--out_dir={out / 'ckpt'}", *args]
    marks = Marks(marks_s, out)
    time.time = clock
    try:
        names = runpy.run_path(train_py, run_name="__main__")
    except _MarksDoneError:
        return
    finally:
        time.time = real_time
    # its iterations ended before the last mark (the documented 2,000 take about two minutes):
    # the finished model is what it has at every later mark
    while not marks.done:
        marks.save({"state": names["raw_model"].state_dict(),
                    "model_args": dict(names["model_args"]), "step": int(names["iter_num"])})


def main() -> None:
    torch.set_num_threads(1)
    kind, rest = sys.argv[1], sys.argv[2:]
    if kind == "workbench":
        steps = 0
        if "--steps" in rest:
            at = rest.index("--steps")
            steps = int(rest[at + 1])
            rest = rest[:at] + rest[at + 2:]
        recipe, out, marks = rest
        train_workbench(recipe, Path(out), [float(m) for m in marks.split(",")], steps)
    elif kind == "nanogpt":
        nanogpt, data, out, marks, *args = rest
        fit = 0.0
        if "--fit-seconds" in args:
            at = args.index("--fit-seconds")
            fit = float(args[at + 1])
            args = args[:at] + args[at + 2:]
        train_nanogpt(Path(nanogpt).resolve(), Path(data).resolve(), Path(out).resolve(),
                      [float(m) for m in marks.split(",")], args, fit)
    else:
        raise SystemExit(f"unknown trainer {kind!r}: workbench or nanogpt")


if __name__ == "__main__":
    main()
