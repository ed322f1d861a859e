"""The nanoGPT comparison of issue 29 on a machine with many cores: every trainer at once, each
pinned to its own core with one thread, scored by one scorer on text none of them saw.

    python -m benchmarks.bench_nanogpt_cores --nanogpt DIR [--presets char-lstm,char-transformer]
        [--minutes 8] [--repeats 2] [--out DIR]

Per repeat, side by side: each workbench preset as shipped (its `minutes` schedule), nanoGPT's
documented CPU recipe (2,000 iterations, its schedule decaying over them), and nanoGPT with its
schedule fitted to each mark's budget (`timed_trainers --fit-seconds`: the iteration count it
reaches in that budget at the speed it has in this crowd, re-estimated as it trains, the way the
workbench fits its own). Marks at 1/4, 2/4, 3/4 and 4/4 of --minutes. It needs
repeats × (presets + 5) cores; a repeat's trainers sit on neighbouring cores, so the repeats
see different cores. All trainers read the same documents (the presets must tokenize and split
the corpus alike) and every model is scored as bench_nanogpt scores it: fresh 64-character
blocks of the test plays, and for a recurrent model also with its state carried.

A side is scored by its own process on its own core as soon as its trainer ends. The load is
recorded. Results: --out/results.json and the table printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import heldout
from benchmarks.bench_nanogpt import (
    NANOGPT_CPU_ARGS,
    find_nanogpt,
    launch,
    load,
    preset_path,
    score_side,
    side_name,
    tokenized,
)


def sides_of_repeat(presets: list[str], marks: list[float], nanogpt: Path, data: Path,
                    iters: int) -> list[dict]:
    """Each trainer of one repeat: its name, its timed_trainers arguments (without the output
    folder) and the marks it saves at."""
    text = ",".join(f"{m:g}" for m in marks)
    nano = ["nanogpt", str(nanogpt), str(data)]
    sides = [{"name": side_name(p), "kind": "workbench", "recipe": str(preset_path(p)),
              "args": ["workbench", str(preset_path(p))], "tail": [], "marks": marks}
             for p in presets]
    sides.append({"name": f"nanoGPT {iters} iterations", "kind": "nanogpt", "args": nano,
                  "tail": [*NANOGPT_CPU_ARGS, f"--max_iters={iters}",
                           f"--lr_decay_iters={iters}"], "marks": marks})
    for m in marks:
        sides.append({"name": f"nanoGPT fitted to {m / 60:g} min", "kind": "nanogpt",
                      "args": nano, "tail": ["--fit-seconds", f"{m:g}", *NANOGPT_CPU_ARGS],
                      "marks": [m]})
    for side in sides:
        side["marks_text"] = text if side["marks"] is marks else f"{side['marks'][0]:g}"
    return sides


def start(side: dict, folder: Path, core: int) -> subprocess.Popen:
    folder.mkdir(parents=True)
    if side["kind"] == "nanogpt":  # nanogpt DIR DATA OUT MARKS [ARG ...]
        args = [*side["args"], str(folder), side["marks_text"], *side["tail"]]
    else:  # workbench RECIPE OUT MARKS
        args = [*side["args"], str(folder), side["marks_text"]]
    return launch(args, core, folder.with_suffix(".log"))


def score_command(folder: Path, preset: str, nanogpt: Path, marks: list[float], core: int
                  ) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_nanogpt_cores", "--score", str(folder),
         "--presets", preset, "--nanogpt", str(nanogpt),
         "--marks", ",".join(f"{m:g}" for m in marks)],
        stdout=open(folder.with_suffix(".score.log"), "w"), stderr=subprocess.STDOUT, env=env,
        preexec_fn=lambda: os.sched_setaffinity(0, {core}))


def score_one(folder: Path, preset: str, nanogpt: Path, marks: list[float]) -> None:
    import torch

    torch.set_num_threads(1)
    corpus = tokenized(preset_path(preset))
    pieces = heldout.corpus_test_pieces(corpus)
    blocks = heldout.heldout_blocks(corpus.ids, pieces)
    rows = score_side(folder, nanogpt, corpus, blocks, pieces, marks)
    (folder / "scores.json").write_text(json.dumps(rows))


def run_all(sides: list[list[dict]], scratch: Path, preset: str, nanogpt: Path) -> list[str]:
    """Every trainer at once; each side scored on its own core when its trainer ends (with
    --share-cores, more trainers than cores share them round the list: a smoke run only)."""
    cores = sorted(os.sched_getaffinity(0))
    trainers, scorers, loads, failed = {}, {}, [], []
    for r, repeat in enumerate(sides):
        for k, side in enumerate(repeat):
            core = cores[(r * len(repeat) + k) % len(cores)]
            trainers[(r, k)] = (start(side, scratch / f"r{r}-s{k}", core), core)
    while trainers or scorers:
        time.sleep(2)
        loads.append(os.getloadavg()[0])
        for key, (process, core) in list(trainers.items()):
            if process.poll() is None:
                continue
            del trainers[key]
            folder, side = scratch / f"r{key[0]}-s{key[1]}", sides[key[0]][key[1]]
            if process.returncode:
                failed.append(f"{side['name']} (repeat {key[0] + 1}) exit {process.returncode}: "
                              f"{folder.with_suffix('.log').read_text()[-1500:]}")
                continue
            scorers[key] = score_command(folder, preset, nanogpt, side["marks"], core)
        for key, process in list(scorers.items()):
            if process.poll() is not None:
                del scorers[key]
                if process.returncode:
                    log = (scratch / f"r{key[0]}-s{key[1]}").with_suffix(".score.log")
                    failed.append(f"scoring {sides[key[0]][key[1]]['name']}: "
                                  f"{log.read_text()[-1500:]}")
    print(f"load average while they ran: mean {statistics.mean(loads):.1f}, max "
          f"{max(loads):.1f} on {len(cores)} cores", flush=True)
    return failed


def mean(rows: list[dict], key: str) -> float:
    return statistics.mean(row[key] for row in rows)


def report(presets: list[str], marks: list[float], sides: list[dict], scores: list[list[list]]
           ) -> dict:
    """scores[repeat][side][mark row]: the table, and the same figures as a dict."""
    n = len(presets)
    table = []
    print("\nnats/char on the test plays (fresh 64-character blocks), mean of "
          f"{len(scores)} repeats; steps per repeat in brackets")
    for j, m in enumerate(marks):
        def at(k: int, row: int) -> list[dict]:
            return [repeat[k][row] for repeat in scores]
        documented, fitted = at(n, j), at(n + 1 + j, 0)
        better = min(mean(documented, "heldout"), mean(fitted, "heldout"))
        line = {"minutes": m / 60, "nanogpt_documented": mean(documented, "heldout"),
                "nanogpt_fitted": mean(fitted, "heldout"), "nanogpt_better": better,
                "nanogpt_steps": [r["step"] for r in documented + fitted]}
        text = (f"{m / 60:4.1f} min  nanoGPT documented {line['nanogpt_documented']:.3f}, "
                f"fitted {line['nanogpt_fitted']:.3f}")
        for k, preset in enumerate(presets):
            rows = at(k, j)
            name = side_name(preset)
            figures = {key: mean(rows, key) for key in rows[0] if key != "step"}
            figures["lead"] = better - figures["heldout"]
            figures["app_val_minus_heldout"] = figures["app_val"] - figures.get(
                "heldout_carried", figures["heldout"])
            figures["steps"] = [r["step"] for r in rows]
            line[name] = figures
            text += (f" | {name} {figures['heldout']:.3f} (lead {figures['lead']:+.3f}"
                     + (f"; carried {figures['heldout_carried']:.3f}"
                        if "heldout_carried" in figures else "")
                     + f"; app validation {figures['app_val']:.3f}, "
                     f"{figures['app_val_minus_heldout']:+.3f})")
        table.append(line)
        print(text, flush=True)
    return {"marks_minutes": [m / 60 for m in marks], "rows": table,
            "sides": [s["name"] for s in sides]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nanogpt", help="folder of a nanoGPT checkout (or NANOGPT_DIR)")
    parser.add_argument("--presets", default="char-lstm,char-transformer")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--nanogpt-iters", type=int, default=2000)
    parser.add_argument("--out", help="folder for results.json and the logs")
    parser.add_argument("--share-cores", action="store_true",
                        help="run on fewer cores than trainers (a smoke run: times are void)")
    parser.add_argument("--score", help=argparse.SUPPRESS)  # a scorer process: its side folder
    parser.add_argument("--marks", help=argparse.SUPPRESS)
    args = parser.parse_args()
    nanogpt = find_nanogpt(args.nanogpt)
    if nanogpt is None:
        raise SystemExit("nanoGPT not found: pass --nanogpt DIR (a checkout of "
                         "https://github.com/karpathy/nanoGPT) or set NANOGPT_DIR")
    presets = args.presets.split(",")
    if args.score:
        score_one(Path(args.score), presets[0], nanogpt, [float(m) for m in args.marks.split(",")])
        return
    marks = [args.minutes * 60 * q / 4 for q in (1, 2, 3, 4)]
    corpora = [tokenized(preset_path(p)) for p in presets]
    if any(c.tokenizer.to_dict() != corpora[0].tokenizer.to_dict()
           or len(c.train) != len(corpora[0].train) for c in corpora):
        raise SystemExit("the presets tokenize or split their corpus differently: one nanoGPT "
                         "data set cannot stand for both")
    out = Path(args.out or tempfile.mkdtemp(prefix="bench-nanogpt-cores-"))
    out.mkdir(parents=True, exist_ok=True)
    data = out / "workbench_chars"
    heldout.write_nanogpt_data(data, corpora[0].train, corpora[0].val, corpora[0].vocab_size)
    sides = [sides_of_repeat(presets, marks, nanogpt, data, args.nanogpt_iters)
             for _ in range(args.repeats)]
    needed = sum(len(repeat) for repeat in sides)
    if len(os.sched_getaffinity(0)) < needed and not args.share_cores:
        raise SystemExit(f"needs {needed} cores, one a trainer; this process may use "
                         f"{len(os.sched_getaffinity(0))}")
    print(f"{os.cpu_count()} cores, load {load()}; {needed} trainers for {args.minutes:g} min; "
          f"train {len(corpora[0].train):,} ids, test pieces "
          f"{heldout.corpus_test_pieces(corpora[0])}", flush=True)
    scratch = out / "runs"
    failed = run_all(sides, scratch, presets[0], nanogpt)
    if failed:
        raise SystemExit("\n\n".join(failed))
    scores = [[json.loads((scratch / f"r{r}-s{k}" / "scores.json").read_text())
               for k in range(len(repeat))] for r, repeat in enumerate(sides)]
    results = report(presets, marks, sides[0], scores) | {
        "scores": scores, "load_at_end": load(), "cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"results: {out / 'results.json'}")


if __name__ == "__main__":
    main()
