"""`workbench export RUN_DIR --csv [--out FILE]`: a run's curves as CSV, for a spreadsheet,
pandas or a plot of one's own. `workbench export MODEL --hf FOLDER`: the model as a Hugging
Face folder of its family (core/pretrained/export.py): a transformer decoder as GPT-2 or Llama,
a BERT-shaped masked LM, classifier or tagger as BERT; a fine-tuned model folder goes back as
the family it came from.

Reads the run's metrics.jsonl (damaged lines are skipped and counted, as when the window opens
a run) and writes one row per logged step, in the order they were logged:

    step, tokens_seen, elapsed_s, loss, lr, grad_norm, clip_rate, tokens_per_s,
    val_loss, perplexity, bits_per_token, val_<metric> ...

A validation fills the validation columns of its step's row (a row of its own when no training
point was logged at that step). After a divergence rollback the repeated steps appear again, as
they were trained; a `rolled_back_to` column marks the row whose step was undone. Empty cells:
not measured. Exit status: 0 written, 2 bad arguments or not a run folder.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from pathlib import Path

from workbench.core.events import DivergenceHandled, EvalLogged, StepLogged

STEP_COLUMNS = ("step", "tokens_seen", "elapsed_s", "loss", "lr", "grad_norm", "clip_rate",
                "tokens_per_s")
VAL_COLUMNS = ("val_loss", "perplexity", "bits_per_token")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench export",
                                     description="Write a run's curves in another format.")
    parser.add_argument("run", help="a run folder (holds metrics.jsonl)")
    parser.add_argument("--csv", action="store_true", help="the curves as CSV (one row per "
                        "logged step)")
    parser.add_argument("--out", metavar="FILE", help="write here (default: standard output)")
    parser.add_argument("--hf", metavar="FOLDER", help="write the model (a run folder or "
                        "checkpoint) as a Hugging Face folder (GPT-2, Llama or BERT, as the "
                        "model is), created here")
    return parser


def export_hf(model: str, folder: str) -> int:
    from workbench.app.generate_cli import open_checkpoint
    from workbench.core.jobs import UserFacingError
    from workbench.core.pretrained.export import export_hf

    try:
        out = export_hf(open_checkpoint(Path(model).expanduser()), Path(folder))
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


def curve_rows(events) -> tuple[list[str], list[dict]]:
    """(columns, rows) of a run's step, validation and rollback events."""
    rows: list[dict] = []
    metric_names: list[str] = []
    for event in events:
        if isinstance(event, StepLogged):
            rows.append({name: getattr(event, name) for name in STEP_COLUMNS})
        elif isinstance(event, EvalLogged):
            row = rows[-1] if rows and rows[-1]["step"] == event.step and \
                "val_loss" not in rows[-1] else None
            if row is None:
                row = {"step": event.step, "tokens_seen": event.tokens_seen,
                       "elapsed_s": event.elapsed_s}
                rows.append(row)
            row.update(val_loss=event.val_loss, perplexity=event.perplexity,
                       bits_per_token=event.bits_per_token)
            for name, value in event.metrics.items():
                if f"val_{name}" not in metric_names:
                    metric_names.append(f"val_{name}")
                row[f"val_{name}"] = value
        elif isinstance(event, DivergenceHandled) and rows:
            rows[-1]["rolled_back_to"] = event.resumed_at
    columns = [*STEP_COLUMNS, *VAL_COLUMNS, *metric_names]
    if any("rolled_back_to" in row for row in rows):
        columns.append("rolled_back_to")
    return columns, rows


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def curves_csv(events) -> str:
    columns, rows = curve_rows(events)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(name)) for name in columns])
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.hf:
        return export_hf(args.run, args.hf)
    if not args.csv:
        print("Choose a format: --csv (the curves as CSV) or --hf FOLDER (the model as a "
              "Hugging Face folder).", file=sys.stderr)
        return 2
    from workbench.core.jobs import UserFacingError
    from workbench.core.training.runs import read_run

    try:
        record = read_run(Path(args.run).expanduser())
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = curves_csv(record.events)
    if record.skipped_lines:
        print(f"note: {record.skipped_lines} damaged line(s) of metrics.jsonl skipped",
              file=sys.stderr)
    if args.out:
        out = Path(args.out).expanduser()
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(out)
    else:
        sys.stdout.write(text)
    return 0
