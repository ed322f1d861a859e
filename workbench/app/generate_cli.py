"""`workbench generate CHECKPOINT [--prompt TEXT] [--tokens N] [--strategy S] [--seed N]`:
write with a trained model without the window.

CHECKPOINT is what the window's "Open checkpoint…" takes: a checkpoint's `.json` or
`.safetensors` file, a run's `checkpoints/` folder or the run folder (its latest checkpoint).
The prompt and its continuation go to stdout. The same seed, prompt and checkpoint give the
same text as the generation console. Exit status: 0 done, 1 failed, 2 bad arguments.
The installer check (packaging/check_linux.py) uses it to show a shipped model writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from workbench.app.cli_failures import failure_text
from workbench.app.cli_types import finite_float
from workbench.core.config.generation import STRATEGIES, GenerationConfig
from workbench.core.events import JobFailed, JobFinished
from workbench.core.jobs import JobControl, UserFacingError, drive


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench generate",
                                     description="Generate text from a checkpoint.")
    parser.add_argument("checkpoint", help="checkpoint file (.json/.safetensors), checkpoints "
                        "folder or run folder")
    parser.add_argument("--prompt", default="", help="text to continue (default: none)")
    parser.add_argument("--tokens", type=int, default=200, metavar="N",
                        help="new tokens to write (default 200)")
    parser.add_argument("--strategy", choices=STRATEGIES, default=GenerationConfig.strategy)
    parser.add_argument("--temperature", type=finite_float,
                        default=GenerationConfig.temperature)
    parser.add_argument("--seed", type=int, default=GenerationConfig.seed)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    config = dataclasses.replace(GenerationConfig(), strategy=args.strategy,
                                 max_tokens=args.tokens, temperature=args.temperature,
                                 seed=args.seed)
    try:
        spec = _job(Path(args.checkpoint).expanduser(), args.prompt, config)
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for event in drive(spec, JobControl()):
        if isinstance(event, JobFailed):
            print(f"error: {failure_text(event)}", file=sys.stderr)
            return 1
        if isinstance(event, JobFinished) and event.result is not None:
            print(event.result.prompt + event.result.text)
    return 0


def open_checkpoint(path: Path):
    """The snapshot of a checkpoint file, checkpoints folder or run folder, as the window's
    "Open checkpoint…" reads it (`workbench evaluate` and `predict` open models this way)."""
    from workbench.app.inspection_backend import snapshot_from_checkpoint

    if not path.exists():
        raise UserFacingError(f"{path} does not exist. Give a checkpoint file, a checkpoints "
                              "folder or a run folder.")
    return snapshot_from_checkpoint(path)  # a damaged file raises a UserFacingError


def _job(path: Path, prompt: str, config: GenerationConfig):
    from workbench.app.inspection_backend import InspectionBackend
    from workbench.core.config.tasks import DEFAULT_TASK

    problems = config.problems()
    if problems:
        raise UserFacingError("Generation settings: " + " ".join(problems))
    snapshot = open_checkpoint(path)
    if snapshot.task_name != DEFAULT_TASK:  # the console of its task, on the command line
        raise UserFacingError(
            f"{snapshot.label} is a '{snapshot.task_name}' model, not a language model: run "
            f"`workbench predict {path} TEXT` to {PREDICT_VERBS.get(snapshot.task_name, 'use')}"
            " with it.")
    return InspectionBackend().generation_job(snapshot, prompt, config)


PREDICT_VERBS = {"seq2seq": "translate", "classify": "classify", "tag": "tag",
                 "masked_lm": "fill a [MASK]"}
