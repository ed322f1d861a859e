"""`workbench train RECIPE [--out DIR] [--device cpu|cuda] [--max-steps N] [--threads N]
[--nproc N]`: headless training.

Runs the same trainer as the window into the same kind of run folder (the GUI opens it with
"Open run directory"), printing one updating progress line on stderr and the run folder on
stdout. Ctrl-C, SIGTERM and SIGHUP stop after the current step and keep a checkpoint;
`--resume RUN_DIR` continues a run. Exit status: 0 done, 1 failed, 2 bad arguments, 130 interrupted.
`--tensorboard` also writes TensorBoard's event files (core/training/tensorboard_log.py).

Torch threads: `--threads N`, else the recipe's `threads`, whose 0 (auto) means every core but
one, as in the window: a shared 2-core machine is not oversubscribed (core/cpu_threads.py).

Several processes: `--nproc N` starts torchrun here with N ranks (each a `workbench train`
with the same arguments, the run folder made first so all write to one). Under torchrun (this
command started by `torchrun ... -m workbench train ...`, on one node or several) each process
is one rank of DistributedDataParallel: the recipe's batch size is per rank, only rank 0
writes the run folder and prints progress, and Ctrl-C stops every rank after the same step.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from workbench.app.cli_failures import failure_text
from workbench.app.cli_run_control import ProgressLine, stop_on_signals, stopped_checkpoint
from workbench.core.config.tasks import headline
from workbench.core.events import (
    DivergenceHandled,
    EvalLogged,
    JobCancelled,
    JobFailed,
    JobFinished,
    Notice,
    RunStarted,
    StepLogged,
)
from workbench.core.jobs import JobControl, JobSpec, UserFacingError, drive


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench train",
                                     description="Train a recipe without the window.")
    parser.add_argument("recipe", nargs="?", help="a recipe .toml (see resources/recipes/)")
    parser.add_argument("--out", metavar="DIR", help="run folder to create (default: a new "
                        "folder in the runs directory)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda", "mps"),
                        help="override the recipe's device")
    parser.add_argument("--max-steps", type=int, metavar="N",
                        help="train N steps: replaces the recipe's step count and its time "
                             "budget ('minutes'), so the schedule fits N steps")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="torch CPU threads (default: the recipe's; 0 = all cores but one)")
    parser.add_argument("--tensorboard", action="store_true",
                        help="also write the curves as TensorBoard event files in the run "
                        "folder's tensorboard/ (the optional extra sequence-workbench"
                        "[tensorboard])")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest "
                        "checkpoint instead of starting a recipe")
    parser.add_argument("--allow-changed-data", action="store_true",
                        help="with --resume: continue even though the run's data files "
                        "changed since it was trained (they are named)")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an "
                        "unexpected failure (else it goes to a log file the message names)")
    parser.add_argument("--nproc", type=int, metavar="N",
                        help="train with N processes on this machine (torchrun, "
                        "DistributedDataParallel; gloo on CPU, NCCL on GPUs); the batch size "
                        "is per process")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if args.debug:
        import os

        from workbench.app.cli_failures import DEBUG_ENV

        os.environ[DEBUG_ENV] = "1"  # torchrun's ranks inherit it
    if bool(args.recipe) == bool(args.resume):
        print("Give a recipe file or --resume RUN_DIR (one of them).", file=sys.stderr)
        return 2
    if args.max_steps is not None and args.max_steps < 1:
        print("--max-steps must be at least 1.", file=sys.stderr)
        return 2
    if args.threads is not None and args.threads < 0:
        print("--threads must be 0 (all cores but one) or more.", file=sys.stderr)
        return 2
    if args.nproc is not None and args.nproc < 1:
        print("--nproc must be at least 1.", file=sys.stderr)
        return 2
    if args.tensorboard and args.resume:
        print("--tensorboard applies to a new run; a resumed run keeps its recipe's setting "
              "([training] tensorboard in RUN_DIR/recipe.toml).", file=sys.stderr)
        return 2
    try:
        from workbench.core.distributed.env import torchrun_env

        rank = torchrun_env()
        if args.nproc is not None:
            return _launch(args, argv, inside_torchrun=rank is not None)
        spec, total = _job(args, rank)
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder that cannot be made or read: said in words
        from workbench.core.jobs import user_message

        print(f"error: {user_message(exc)}", file=sys.stderr)
        return 2
    known = Path(args.resume or args.out).expanduser() if (args.resume or args.out) else None
    code = _run(spec, total, rank, known)
    if rank is not None and code != 1:  # a failed rank exits as usual: torchrun names it
        from workbench.core.distributed.env import leave_rank

        leave_rank(code)
    return code


def _launch(args, argv: list[str], inside_torchrun: bool) -> int:
    """`--nproc N`: make (or check) the run folder, then start torchrun with N ranks."""
    import os

    from workbench.core.distributed.launch import launch
    from workbench.core.training import run_folder, run_lock
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training.runs import new_run_dir

    if inside_torchrun:
        raise UserFacingError("--nproc starts torchrun itself; under torchrun leave it out.")
    rank_args = _without_nproc(argv)
    if args.resume:
        run_dir = Path(args.resume).expanduser()
        _HELD.append(run_folder.open_for_resume(run_dir))
        load_recipe(run_dir / "recipe.toml")
    else:
        recipe = load_recipe(args.recipe)
        if args.out:
            run_dir = _new_out(args.out)
        else:  # one folder for every rank, made here so the message can name it
            run_dir = new_run_dir(recipe.name)
            _HELD.append(run_folder.claim(run_dir))
            rank_args += ["--out", str(run_dir)]
    os.environ[run_lock.HOLDER_ENV] = str(os.getpid())  # rank 0 writes on this lock's behalf
    return launch(args.nproc, rank_args, run_dir)


def _without_nproc(argv: list[str]) -> list[str]:
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--nproc":
            skip = True
        elif not arg.startswith("--nproc="):
            kept.append(arg)
    return kept


_HELD: list = []  # run-folder locks this process keeps until it exits (run_lock.py)


def _new_out(out: str) -> Path:
    """Claim `--out` for this run: new, empty, or this app's run that saved nothing; locked
    for as long as this process lives (run_folder.py says why a user's folder is refused)."""
    from workbench.core.training import run_folder

    path = Path(out).expanduser()
    _HELD.append(run_folder.claim(path))
    return path


def _job(args, rank=None) -> tuple[JobSpec, int]:
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps, resume_steps

    if args.resume:
        if rank is None or rank.is_writer:  # refused now if another process holds the run
            from workbench.core.training import run_folder

            _HELD.append(run_folder.open_for_resume(Path(args.resume).expanduser()))
        recipe = load_recipe(Path(args.resume) / "recipe.toml")
        total = args.max_steps or recipe.training.max_steps
        return JobSpec("resume", lambda control: resume_steps(
            args.resume, control, args.max_steps, threads=args.threads, gui=False,
            distributed=rank, device=args.device,
            allow_changed_data=args.allow_changed_data)), total
    recipe = load_recipe(args.recipe)
    changes = {}
    if args.device:
        changes["device"] = args.device
    if args.max_steps:
        # a step count the user typed is the budget: the recipe's minutes would otherwise fit
        # the schedule to a time the run never reaches (and several ranks refuse minutes)
        changes["max_steps"], changes["minutes"] = args.max_steps, 0.0
        changes["warmup_steps"] = min(recipe.training.warmup_steps, args.max_steps - 1)
    if args.threads is not None:
        changes["threads"] = args.threads
    if args.tensorboard:
        changes["tensorboard"] = True
    recipe.training = dataclasses.replace(recipe.training, **changes)
    problems = recipe.training.problems()
    if problems:
        raise UserFacingError(" ".join(problems))
    out = None
    if args.out:  # only the writing rank claims it; the others never touch it
        out = (_new_out(args.out) if rank is None or rank.is_writer
               else Path(args.out).expanduser())
    return JobSpec(recipe.name, lambda control: recipe_train_steps(
        recipe, control, run_dir=out, gui=False, distributed=rank)), recipe.training.max_steps


def _run(spec: JobSpec, total: int, rank=None, run_dir: Path | None = None) -> int:
    control = JobControl()
    progress = ProgressLine(quiet=rank is not None and not rank.is_writer)
    prefix = f"[rank {rank.rank}] " if rank is not None else ""
    last_step = None
    task = "language_model"
    # under torchrun the context's StopSignals stops every rank after the same step instead
    restore = stop_on_signals(control, progress.line) if rank is None else (lambda: None)
    try:
        for event in drive(spec, control):
            if isinstance(event, StepLogged):
                last_step = event
                progress.update(event, total)
            elif isinstance(event, RunStarted):
                task = event.task
                run_dir = Path(event.run_dir)
            elif isinstance(event, EvalLogged):
                summary = headline(task, event.metrics)
                progress.val = f"  val {event.val_loss:.4f}" + (f" ({summary})" if summary
                                                                else "")
            elif isinstance(event, DivergenceHandled):
                progress.line(f"step {event.step}: {event.reason}; rolled back to step "
                              f"{event.resumed_at}, learning rate now {event.new_lr:.3g}")
            elif isinstance(event, Notice):
                progress.line(f"note: {event.text}")
            elif isinstance(event, JobFailed):
                progress.line(f"{prefix}error: {failure_text(event)}", error=True)
                return 1
            elif isinstance(event, JobCancelled):
                progress.line(f"{event.reason}; {stopped_checkpoint(run_dir)}")
                return 130
            elif isinstance(event, JobFinished):
                if last_step is not None:
                    progress.update(last_step, total, final=True)
                progress.line("done")
                if not progress.quiet:
                    print(event.result)
                return 0
    except KeyboardInterrupt:  # the trainer's clean-up (its last save) has run by now
        progress.line(f"stopped; {stopped_checkpoint(run_dir)}")
        return 130
    finally:
        restore()
    return 1
