"""`workbench evaluate MODEL DATA [--json] [--block N] [--allow-unknown]`: score a trained model
on a file, with the figures its Training panel shows (issue 29, item 5).

MODEL is what `workbench generate` opens (a checkpoint file, checkpoints folder or run folder);
DATA depends on the model's task:
  language model     a text file or folder: nats per token and per character, perplexity and
                     bits, in fresh blocks of the model's context (and with the state carried
                     for a recurrent model)
  sequence to seq.   a file of tab-separated pairs (the run's columns): loss, token accuracy,
                     exact match, BLEU and chrF, every target of a source a reference
  classification     a labelled file (the run's columns): accuracy, macro-F1, confusion matrix
  tagging            CoNLL-U (the run's column): token accuracy, macro-F1, F1 per tag
  masked LM          a text file or folder, one sentence a line: nats per masked token and
                     masked words recovered under the task's corruption (seeded: --seed),
                     and for next-sentence prediction its loss and accuracy on seeded pairs
A file that does not fit the model (unknown labels or tags, characters a character model never
saw) is refused with what does not fit. Exit status: 0 done, 1 failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.core.jobs import UserFacingError

SHARES = {"token_accuracy", "exact_match", "accuracy", "macro_f1",  # shown as percentages
          "nsp_accuracy"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench evaluate",
                                     description="Score a trained model on a file.")
    parser.add_argument("model", help="checkpoint file (.json/.safetensors), checkpoints "
                        "folder or run folder")
    parser.add_argument("data", help="a text file or folder (language model), a file of pairs, "
                        "a labelled file or CoNLL-U, as the model's task reads")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--block", type=int, metavar="N",
                        help="language model: tokens per fresh block (default: the model's "
                        "context, or 64 for a model without one)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="masked LM: the seed of the masking (and of the sentence pairs); "
                        "the same seed masks the same tokens (default: a run's default seed)")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="score characters the model has no token for as <unk> instead "
                        "of refusing the file")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.block is not None and args.block < 1:
        print("error: --block takes a positive number of tokens", file=sys.stderr)
        return 2
    try:
        report, label = evaluate(Path(args.model).expanduser(), Path(args.data).expanduser(),
                                 args.block, args.allow_unknown, args.seed)
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"model": label, **report.to_dict()}, indent=2))
    else:
        print(describe(report, label))
    return 0


def evaluate(model_path: Path, data: Path, block: int | None = None,
             allow_unknown: bool = False, seed: int | None = None):
    """(EvaluationReport, the model's label) of the model at `model_path` on `data`."""
    from workbench.app.generate_cli import open_checkpoint
    from workbench.core.config.tasks import DEFAULT_TASK

    snapshot = open_checkpoint(model_path)
    if not data.exists():
        raise UserFacingError(f"{data} does not exist.")
    from workbench.core.evaluation.lm_evaluate import evaluate_language_model
    from workbench.core.evaluation.task_evaluate import evaluate_task
    from workbench.core.snapshot.rebuild import model_from_snapshot

    model = model_from_snapshot(snapshot).eval()
    if snapshot.task_name == DEFAULT_TASK:
        report = evaluate_language_model(model, snapshot.tokenizer, data, block, allow_unknown)
    else:
        report = evaluate_task(model, snapshot, data, allow_unknown, seed)
    return report, snapshot.label


def _value(name: str, value: float) -> str:
    if name in SHARES:
        return f"{value:.2%}"
    if name in ("tokens", "chars"):
        return f"{int(value):,}"
    return f"{value:.4f}" if abs(value) < 1000 else f"{value:,.1f}"


def _line(metrics: dict) -> str:
    return "  ".join(f"{name.replace('_', ' ')} {_value(name, v)}" for name, v in metrics.items())


def describe(report, label: str) -> str:
    lines = [f"{label} on {report.data}: {report.items:,} {report.item_name}"]
    if report.task == "language_model":
        lines.append(f"fresh blocks of {report.results['block']} tokens: "
                     + _line(report.metrics))
        if "carried" in report.results:
            lines.append("state carried through each file: " + _line(report.results["carried"]))
    else:
        lines.append(_line(report.metrics))
    if report.task == "masked_lm":
        lines.append(f"{report.results['masked_tokens']:,} masked tokens")
    if "f1" in report.results:
        lines.append("F1 per " + ("tag" if report.task == "tag" else "label") + ": " + ", ".join(
            f"{name} {f1:.2%}" for name, f1 in report.results["f1"].items()))
    classes = report.results.get("classes")
    if classes and report.task == "classify":
        names = classes["names"]
        width = max(len(n) for n in names) + 2
        lines.append("confusion (rows true, columns predicted):")
        lines.append(" " * width + "".join(f"{n:>{width}}" for n in names))
        for name, row in zip(names, classes["confusion"], strict=True):
            lines.append(f"{name:<{width}}" + "".join(f"{c:>{width}}" for c in row))
    lines.extend(f"note: {n}" for n in report.notes)
    return "\n".join(lines)
