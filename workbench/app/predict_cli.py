"""`workbench predict MODEL [INPUT …] [--file F] [--json]`: what the task's console answers,
on the command line (issue 35, item 3).

MODEL is what `workbench generate` opens. Each INPUT (or each line of `--file`, or of standard
input when neither is given; `--file -` is standard input too) is one question:
  sequence to sequence   its output, greedy or `--beam N` (with its log-probability)
  classification         the label, each label's probability, each token's contribution
  tagging                each word's tag
  masked LM              the top tokens for each [MASK]
  language model         a continuation (`--tokens`, `--seed`; `workbench generate` has more)
  series forecaster      the next `--tokens` values of the numbers given
The answers come from the task's own `predict` job, the one the console runs.
Exit status: 0 done, 1 a question failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from workbench.core.jobs import JobControl, UserFacingError, drive

TOP_PROBABILITIES = 5  # candidates shown per [MASK]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench predict",
                                     description="Ask a trained model what its console does.")
    parser.add_argument("model", help="checkpoint file (.json/.safetensors), checkpoints "
                        "folder or run folder")
    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="texts to ask about")
    parser.add_argument("--file", metavar="F", help="one input per line ('-': standard input)")
    parser.add_argument("--json", action="store_true", help="one JSON object per input")
    parser.add_argument("--beam", type=int, metavar="N",
                        help="sequence to sequence: beam search of width N (default greedy)")
    parser.add_argument("--max-length", type=int, default=64, metavar="N",
                        help="sequence to sequence: longest output (default 64)")
    parser.add_argument("--tokens", type=int, default=100, metavar="N",
                        help="language model: tokens to continue with; series forecaster: "
                        "values to forecast (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="language model: sampling seed")
    return parser


def read_inputs(args) -> list[str]:
    if args.inputs and args.file:
        raise UserFacingError("Give inputs on the command line or with --file, not both.")
    if args.inputs:
        return list(args.inputs)
    if args.file and args.file != "-":
        path = Path(args.file).expanduser()
        if not path.is_file():
            raise UserFacingError(f"{path} does not exist.")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UserFacingError(f"{path} is not UTF-8 text.") from None
    else:
        text = sys.stdin.read()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise UserFacingError("No input: give texts, --file F, or lines on standard input.")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        snapshot, model, settings = open_model(args)
        inputs = read_inputs(args)
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from workbench.core.tasks import task_class

    failed = False
    predict = task_class(snapshot.task_name).predict
    for text in inputs:
        try:
            result = run(predict(model, snapshot.tokenizer, text, settings))
        except UserFacingError as exc:  # one bad input does not stop the others
            print(f"error: {text!r}: {exc}", file=sys.stderr)
            failed = True
            continue
        answer = answer_dict(snapshot.task_name, text, result)
        print(json.dumps(answer, ensure_ascii=False) if args.json else describe(answer))
    return 1 if failed else 0


def open_model(args):
    """(snapshot, model, the task's console settings) of the MODEL argument."""
    from workbench.app.generate_cli import open_checkpoint
    from workbench.core.config.generation import GenerationConfig
    from workbench.core.config.seq2seq import Seq2seqDecodeConfig
    from workbench.core.snapshot.rebuild import model_from_snapshot

    snapshot = open_checkpoint(Path(args.model).expanduser())
    settings = None
    if snapshot.task_name == "seq2seq":
        settings = Seq2seqDecodeConfig(strategy="beam" if args.beam else "greedy",
                                       beam_width=args.beam or 4, max_length=args.max_length)
    elif snapshot.task_name == "forecast":  # --tokens: how many values to forecast
        from workbench.core.config.forecast import ForecastTaskConfig

        settings = ForecastTaskConfig(horizon=args.tokens)
    elif snapshot.task_name == "language_model":
        settings = dataclasses.replace(GenerationConfig(), max_tokens=args.tokens,
                                       seed=args.seed)
    problems = settings.problems() if settings is not None else []
    if problems:
        raise UserFacingError(" ".join(problems))
    return snapshot, model_from_snapshot(snapshot).eval(), settings


def run(spec):
    """The result of a console job, run here to its end."""
    from workbench.core.events import JobFailed, JobFinished

    result = None
    for event in drive(spec, JobControl()):
        if isinstance(event, JobFailed):
            from workbench.app.cli_failures import failure_text

            raise UserFacingError(failure_text(event))
        if isinstance(event, JobFinished):
            result = event.result
    return result


def answer_dict(task: str, text: str, result) -> dict:
    """The console's answer as plain JSON-able values."""
    if task == "seq2seq":
        return {"input": text, "output": result.text, "strategy": result.strategy,
                "log_prob": float(result.log_prob)}
    if task == "classify":
        return {"input": text, "label": result.predicted,
                "probabilities": {lb: float(p) for lb, p in zip(result.labels, result.probs,
                                                                strict=True)},
                "contributions": [[t, float(c)] for t, c in zip(result.tokens,
                                                                result.contributions,
                                                                strict=True)],
                "method": result.method}
    if task == "tag":
        return {"input": text, "tags": [[w, t] for w, t in zip(result.words, result.predicted,
                                                                strict=True)]}
    if task == "forecast":
        return {"input": text, "forecast": list(result)}
    if task == "masked_lm":
        return {"input": text, "masks": [
            [[c, float(p)] for c, p in list(zip(cands, probs, strict=True))[:TOP_PROBABILITIES]]
            for cands, probs in zip(result.candidates, result.probs, strict=True)]}
    return {"input": text, "continuation": result.text}


def describe(answer: dict) -> str:
    if "output" in answer:
        return f"{answer['input']}\t{answer['output']}"
    if "label" in answer:
        probs = ", ".join(f"{lb} {p:.1%}" for lb, p in answer["probabilities"].items())
        words = " ".join(f"{t}({c:+.3f})" for t, c in answer["contributions"])
        return f"{answer['label']}\t{answer['input']}\n  {probs}\n  {answer['method']}: {words}"
    if "tags" in answer:
        return " ".join(f"{w}/{t}" for w, t in answer["tags"])
    if "masks" in answer:
        return answer["input"] + "\n" + "\n".join(
            f"  [MASK] {i + 1}: " + ", ".join(f"{c} {p:.1%}" for c, p in cands)
            for i, cands in enumerate(answer["masks"]))
    if "forecast" in answer:
        return answer["input"] + "\t→ " + " ".join(f"{v:.4g}" for v in answer["forecast"])
    return answer["input"] + answer["continuation"]
