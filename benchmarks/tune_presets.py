"""Tunes a preset on its validation documents, then reports the chosen variant on the test
documents (issue 29, item 4).

    .venv/bin/python -m benchmarks.tune_presets --preset char-transformer [--minutes 6]
        [--variants 0,3,5] [--out DIR] [--steps N]

Every variant of the preset (the grid below: dropout, width, depth, learning rate, batch,
context) is the shipped recipe with a few fields changed and its time budget set to
`--minutes` (`[training] minutes`: the cosine schedule is fitted to that time, as the presets
train). The variants train at the same moment, each in its own process pinned to its own core
with one torch thread (benchmarks/timed_trainers.py), so every variant gets the same compute;
it needs as many free cores as variants. Each is saved at 1/3, 2/3 and all of its time.

Choosing reads only the validation documents: each model is scored on them by one scorer
(fresh 64-character blocks, and a recurrent model also with its state carried through each
piece, the way its console and the app's validation read it). The variant with the lowest
validation figure at the last mark is chosen; only then is the test split scored, for that
variant and for the preset as shipped, so the test documents never steer the choice.
Results go to DIR/results.json as each variant is scored (a run cut short keeps what it had);
the saved models stay in a scratch folder the run prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from benchmarks import heldout
from benchmarks.bench_nanogpt import launch, load, preset_path, tokenized

# Variants of each preset: fields changed from the shipped recipe ("section.key": value).
# The first is the preset as shipped, the reference every other is compared with.
GRIDS: dict[str, list[dict[str, object]]] = {
    "char-transformer": [
        {},
        {"model.dropout": 0.1},
        {"model.dropout": 0.2},
        {"training.lr": 2e-3},
        {"training.lr": 2e-3, "model.dropout": 0.1},
        {"model.num_layers": 4, "model.dropout": 0.1},
        {"model.d_model": 192, "model.d_ff": 768, "model.dropout": 0.1},
        {"training.batch_size": 32, "training.lr": 2e-3, "model.dropout": 0.1},
    ],
    "char-lstm": [
        {},
        {"model.dropout": 0.1},
        {"model.dropout": 0.25},
        {"model.hidden_size": 384},
        {"model.hidden_size": 384, "model.dropout": 0.25},
        {"model.num_layers": 2, "model.dropout": 0.2},
        {"training.seq_len": 128},
        {"training.lr": 5e-3},
    ],
}


def variant_recipe(shipped: dict, changes: dict[str, object], minutes: float) -> dict:
    """The shipped recipe's tables with `changes` applied and its time budget set."""
    recipe = {key: dict(value) if isinstance(value, dict) else value
              for key, value in shipped.items()}
    for dotted, value in {**changes, "training.minutes": minutes}.items():
        section, key = dotted.split(".")
        if key not in recipe.get(section, {}) and dotted != "training.minutes":
            raise KeyError(f"{dotted}: the preset has no such field")
        recipe.setdefault(section, {})[key] = value
    return recipe


def label(changes: dict[str, object]) -> str:
    return ", ".join(f"{k.split('.')[1]} {v:g}" if isinstance(v, float) else
                     f"{k.split('.')[1]} {v}" for k, v in changes.items()) or "as shipped"


def chosen(rows: list[dict], key: str) -> int:
    """Index of the variant with the lowest validation figure at its last mark."""
    return min(range(len(rows)), key=lambda i: rows[i]["marks"][-1][key])


def score_marks(folder: Path, corpus, n_marks: int, split: str) -> tuple[list[dict], bool]:
    """Nats/char of the model at every mark on `split`: fresh blocks, and carried state for a
    recurrent model (which the second value says it is)."""
    import torch

    pieces = corpus.split_ranges(split)
    blocks = heldout.heldout_blocks(corpus.ids, pieces)
    rows = []
    for k in range(n_marks):
        saved = torch.load(folder / f"mark-{k}.pt", weights_only=False)
        model = heldout.workbench_model(saved)
        logits_of = heldout.logits_function(model, False)
        row = {"step": saved["step"], "elapsed_s": saved["elapsed_s"],
               "fresh": heldout.score(logits_of, *blocks)}
        row["carried"] = (heldout.score_carried(logits_of, corpus.ids, pieces)
                          if getattr(model, "supports_state", False) else row["fresh"])
        rows.append(row)
    return rows, bool(getattr(model, "supports_state", False))


def train_all(recipes: list[Path], scratch: Path, marks: list[float], steps: int) -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < len(recipes):
        raise SystemExit(f"{len(recipes)} variants need {len(recipes)} free cores; "
                         f"this machine lends {len(cores)} (choose fewer with --variants)")
    marks_text = ",".join(f"{m:g}" for m in marks)
    children = []
    for k, recipe in enumerate(recipes):
        folder = scratch / f"variant-{k}"
        folder.mkdir()
        args = ["workbench", str(recipe), str(folder), marks_text,
                *(["--steps", str(steps)] if steps else [])]
        children.append(launch(args, cores[k], scratch / f"variant-{k}.log"))
    while any(p.poll() is None for p in children):
        time.sleep(5)
    for k, process in enumerate(children):
        if process.returncode != 0:
            log = (scratch / f"variant-{k}.log").read_text()[-2000:]
            print(f"variant {k} failed (exit {process.returncode}):\n{log}", flush=True)


def report(preset: str, rows: list[dict], best: int, test: dict) -> None:
    key = "carried" if rows[0]["recurrent"] else "fresh"
    print(f"\n{preset}: validation documents, nats/char ({key}"
          f"{' state' if key == 'carried' else ' 64-character blocks'}) at each mark; steps:")
    for i, row in enumerate(rows):
        cells = "  ".join(f"{m[key]:.3f} [{m['step']}]" for m in row["marks"])
        print(f"  {'*' if i == best else ' '} {i}. {row['label']:<40} {cells}", flush=True)
    for name, figures in test.items():
        print(f"  test documents, {name}: {figures['fresh']:.3f} fresh blocks, "
              f"{figures['carried']:.3f} state carried", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", required=True, choices=sorted(GRIDS))
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--variants", help="indices of the grid to train (default: all)")
    parser.add_argument("--out", help="folder for results.json (default: a scratch folder)")
    parser.add_argument("--steps", type=int, default=0, help="cap on steps (a quick check)")
    args = parser.parse_args()
    grid = GRIDS[args.preset]
    chosen_indices = ([int(i) for i in args.variants.split(",")] if args.variants
                      else list(range(len(grid))))
    out = Path(args.out or tempfile.mkdtemp(prefix="tune-presets-"))
    out.mkdir(parents=True, exist_ok=True)
    with open(preset_path(args.preset), "rb") as handle:
        shipped = tomllib.load(handle)
    import tomli_w

    scratch = Path(tempfile.mkdtemp(prefix=f"tune-{args.preset}-"))  # the models stay there
    recipes = []
    for k, index in enumerate(chosen_indices):
        path = scratch / f"variant-{k}.toml"
        path.write_text(tomli_w.dumps(variant_recipe(shipped, grid[index], args.minutes)))
        recipes.append(path)
    marks = [args.minutes * 60 * q / 3 for q in (1, 2, 3)]
    print(f"{args.preset}: {len(recipes)} variants for {args.minutes:g} min each, "
          f"{os.cpu_count()} cores, load {load()}; models in {scratch}", flush=True)
    train_all(recipes, scratch, marks, args.steps)
    corpus = tokenized(recipes[0])  # the variants change no corpus or tokenizer field
    rows = []
    for k, index in enumerate(chosen_indices):
        folder = scratch / f"variant-{k}"
        if not (folder / f"mark-{len(marks) - 1}.pt").exists():
            continue
        marks_scored, recurrent = score_marks(folder, corpus, len(marks), "val")
        rows.append({"index": index, "label": label(grid[index]), "changes": grid[index],
                     "recurrent": recurrent, "folder": str(folder), "marks": marks_scored})
        (out / "results.json").write_text(json.dumps({"preset": args.preset,
                                                      "minutes": args.minutes,
                                                      "variants": rows}, indent=1))
    if not rows:
        raise SystemExit("no variant finished")
    key = "carried" if rows[0]["recurrent"] else "fresh"
    best = chosen(rows, key)
    test = {}
    compared = {"chosen": rows[best]}
    shipped_rows = [row for row in rows if row["index"] == 0]
    if shipped_rows:
        compared["as shipped"] = shipped_rows[0]
    for name, row in compared.items():
        test[f"{name} ({row['label']})"] = score_marks(Path(row["folder"]), corpus,
                                                        len(marks), "test")[0][-1]
    (out / "results.json").write_text(json.dumps({"preset": args.preset, "minutes": args.minutes,
                                                  "variants": rows, "chosen": rows[best]["index"],
                                                  "test": test}, indent=1))
    report(args.preset, rows, best, test)
    print(f"load at the end {load()}; results in {out / 'results.json'}")


if __name__ == "__main__":
    sys.exit(main())
