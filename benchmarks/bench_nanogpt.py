"""Time to quality against nanoGPT's trainer, side by side on this machine (issue 18, item 1).

    .venv/bin/python -m benchmarks.bench_nanogpt --nanogpt DIR [--presets char-lstm,...]
        [--minutes 8] [--repeats 2] [--nanogpt-iters 2000] [--steps N]

nanoGPT is not part of this repository. Get it once (any commit of the public repository):

    git clone https://github.com/karpathy/nanoGPT /tmp/nanoGPT

and pass its folder with --nanogpt or the NANOGPT_DIR variable; without it the benchmark says
so and stops. Only its own train.py, configurator.py, model.py and its CPU settings for
config/train_shakespeare_char.py are used, unmodified (benchmarks/timed_trainers.py).

For every repeat and preset, a workbench preset (the headless trainer, recipe as shipped) and
nanoGPT's trainer (its README's CPU command: 4 layers, 4 heads, 128 wide, block 64, batch 12,
no dropout, `--nanogpt-iters` iterations with the schedule decaying over them; 2000 is the
documented recipe, about two minutes) start at the same moment, each pinned to its own core
(os.sched_setaffinity) with one torch thread; the cores swap every repeat. Both read the same
text: the shipped plays, char tokens, the workbench's own split (nanoGPT's train.bin and
val.bin are the workbench's training and validation ids). Each saves its model at a quarter,
half, three quarters and all of `--minutes`; afterwards every model is scored on the test split
(text neither saw) by one scorer: fresh 64-character blocks, nats per character
(benchmarks/heldout.py). For the workbench's models the table also gives the app's own
validation figure (the trainer's validation windows and routine) and the same fresh-block
scorer on the validation split and the app's routine on the test split, to check that
validation tells the truth about held-out text (issue 18, item 2). The app's routine carries a
recurrent model's state through 10 consecutive windows, where the fresh-block scorer starts
every block afresh; so for a recurrent model the held-out text is also scored with its state
carried through each test piece (`heldout.score_carried`), and that is the figure its app
validation is compared with.
Load averages are printed as the runs go: the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import heldout

NANOGPT_CPU_ARGS = ["--device=cpu", "--compile=False", "--eval_iters=20", "--log_interval=1",
                    "--block_size=64", "--batch_size=12", "--n_layer=4", "--n_head=4",
                    "--n_embd=128", "--dropout=0.0"]


def find_nanogpt(given: str | None) -> Path | None:
    folder = given or os.environ.get("NANOGPT_DIR")
    if folder and (Path(folder) / "train.py").is_file() and (Path(folder) / "model.py").is_file():
        return Path(folder).resolve()
    return None


def preset_path(name: str) -> Path:
    from workbench.core.resources import resources_root

    path = Path(name)
    return path if path.suffix == ".toml" else resources_root() / "recipes" / f"{name}.toml"


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def tokenized(recipe_path: Path):
    """The recipe's corpus, tokenized and split as the workbench trainer does it."""
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.tasks.language_model import corpus_tokens_steps
    from workbench.core.training.recipe import load_recipe

    return run_to_end(corpus_tokens_steps(load_recipe(recipe_path), JobControl()))


def launch(args: list[str], core: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "benchmarks.timed_trainers", *args],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env,
                            preexec_fn=lambda: os.sched_setaffinity(0, {core}))


def side_args(side: str, folder: Path, marks_text: str, nanogpt: Path | None, data: Path,
              iters: int, steps: int) -> list[str]:
    """The timed_trainers command of one side: 'nanogpt' or a workbench recipe path."""
    if side == "nanogpt":
        return ["nanogpt", str(nanogpt), str(data), str(folder), marks_text, *NANOGPT_CPU_ARGS,
                f"--max_iters={iters}", f"--lr_decay_iters={iters}"]
    return ["workbench", side, str(folder), marks_text, *(["--steps", str(steps)] if steps else [])]


def run_pair(sides: tuple[str, str], nanogpt: Path | None, data: Path, marks: list[float],
             cores: tuple[int, int], folder: Path, iters: int, steps: int) -> None:
    """Both sides at once, side k pinned to cores[k]; their marks go to folder/side-k/."""
    marks_text = ",".join(f"{m:g}" for m in marks)
    children = []
    for k, side in enumerate(sides):
        (folder / f"side-{k}").mkdir(parents=True)
        args = side_args(side, folder / f"side-{k}", marks_text, nanogpt, data, iters, steps)
        children.append(launch(args, cores[k], folder / f"side-{k}.log"))
    loads = []
    while any(p.poll() is None for p in children):
        time.sleep(5)
        loads.append(os.getloadavg()[0])
    for k, process in enumerate(children):
        if process.returncode != 0:
            log = (folder / f"side-{k}.log").read_text()
            raise SystemExit(f"{sides[k]} failed (exit {process.returncode}):\n{log[-3000:]}")
    print(f"  load average during the pair: mean {statistics.mean(loads):.1f}, "
          f"max {max(loads):.1f}", flush=True)


def score_side(folder: Path, nanogpt: Path | None, corpus, blocks, pieces, marks: list[float]
               ) -> list[dict]:
    """Scores of one side's models at every mark: held-out, and for a workbench model also
    the app's validation figure and the fresh-block scorer on the validation split."""
    import numpy as np
    import torch

    from workbench.core.training.batches import validation_windows
    from workbench.core.training.evaluation import evaluate
    from workbench.core.training.recipe import load_recipe

    val = np.asarray(corpus.val)
    val_blocks = heldout.heldout_blocks(val, [(0, len(val))])
    rows = []
    for k, _ in enumerate(marks):
        saved = torch.load(folder / f"mark-{k}.pt", weights_only=False)
        row = {"step": saved["step"]}
        if "model_args" in saved:  # nanoGPT's
            with contextlib.redirect_stdout(io.StringIO()):  # it prints its size when built
                model = heldout.nanogpt_model(saved, nanogpt)
            row["heldout"] = heldout.score(heldout.logits_function(model, True), *blocks)
        else:
            model = heldout.workbench_model(saved)
            training = load_recipe(folder / "run" / "recipe.toml").training
            seq = min(training.seq_len, getattr(model.config, "context_length", training.seq_len))
            logits_of = heldout.logits_function(model, False)

            def app_routine(ids, training=training, seq=seq, model=model):
                windows = validation_windows(ids, training.batch_size, seq, training.eval_batches,
                                             bool(getattr(model, "supports_state", False)))
                return evaluate(model, windows, torch.device("cpu"), False)

            row |= {"heldout": heldout.score(logits_of, *blocks), "app_val": app_routine(val),
                    "app_test": app_routine(np.asarray(corpus.test)),
                    "val_fresh": heldout.score(logits_of, *val_blocks)}
            if getattr(model, "supports_state", False):
                row["heldout_carried"] = heldout.score_carried(logits_of, corpus.ids, pieces)
        rows.append(row)
    return rows


def side_name(side: str) -> str:
    return "nanoGPT" if side == "nanogpt" else Path(side).stem


def report(sides: tuple[str, str], marks: list[float], results: list[list[list[dict]]]) -> None:
    """results[repeat][side][mark]: means over the repeats, then each repeat."""
    def cell(side: int, k: int, key: str) -> str:
        values = [r[side][k][key] for r in results]
        return f"{statistics.mean(values):.3f} ({', '.join(f'{v:.3f}' for v in values)})"

    names = [side_name(s) for s in sides]
    print(f"\n{names[0]} against {names[1]}, nats/char on the held-out text (mean of "
          f"{len(results)}; each repeat):")
    for k, mark in enumerate(marks):
        parts = [f"{mark / 60:4.1f} min"]
        for side, name in enumerate(names):
            steps = "/".join(str(r[side][k]["step"]) for r in results)
            parts.append(f"{name} {cell(side, k, 'heldout')} [steps {steps}]")
        print("  " + "  ".join(parts), flush=True)
    for side, name in enumerate(names):
        if "app_val" not in results[0][side][0]:
            continue
        carried = "heldout_carried" in results[0][side][0]
        reference = "heldout_carried" if carried else "heldout"
        print(f"  {name}: app validation / fresh blocks on the validation split / held-out "
              "(fresh blocks on the test split) / the app's routine on the test split"
              + (" / held-out with the state carried through each test piece:" if carried
                 else ":"))
        for k, mark in enumerate(marks):
            gaps = [r[side][k]["app_val"] - r[side][k][reference] for r in results]
            print(f"    {mark / 60:4.1f} min  {cell(side, k, 'app_val')} / "
                  f"{cell(side, k, 'val_fresh')} / {cell(side, k, 'heldout')} / "
                  f"{cell(side, k, 'app_test')}"
                  + (f" / {cell(side, k, 'heldout_carried')}" if carried else "")
                  + f"; app validation - held-out{' (carried)' if carried else ''} "
                  f"{statistics.mean(gaps):+.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nanogpt", help="folder of a nanoGPT checkout (or NANOGPT_DIR)")
    parser.add_argument("--presets", default="char-lstm,char-transformer",
                        help="shipped preset names or recipe paths, comma-separated")
    parser.add_argument("--versus", default="nanogpt",
                        help="the other side: nanogpt, or a recipe (to compare two presets "
                             "the same way; it must tokenize the same corpus alike)")
    parser.add_argument("--minutes", type=float, default=8.0,
                        help="models are saved and scored at 1/4, 2/4, 3/4 and 4/4 of this")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--nanogpt-iters", type=int, default=2000,
                        help="nanoGPT's max_iters = lr_decay_iters (2000: its CPU recipe)")
    parser.add_argument("--swap-cores", action="store_true",
                        help="start with the preset on the second core (to add a repeat)")
    parser.add_argument("--steps", type=int, default=0,
                        help="the workbench recipes' max_steps (0: as written)")
    args = parser.parse_args()
    nanogpt = find_nanogpt(args.nanogpt)
    if args.versus == "nanogpt" and nanogpt is None:
        print("nanoGPT not found: skipped. Get it with `git clone "
              "https://github.com/karpathy/nanoGPT DIR` and pass --nanogpt DIR (or set "
              "NANOGPT_DIR).")
        return
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs two cores, one for each trainer")
    cores = sorted(os.sched_getaffinity(0))[:2]
    marks = [args.minutes * 60 * q / 4 for q in (1, 2, 3, 4)]
    versus = "nanogpt" if args.versus == "nanogpt" else str(preset_path(args.versus))
    print(f"{os.cpu_count()} cores, load average {load()} (1/5/15 min); "
          f"nanoGPT: {nanogpt or 'not used'}")
    with tempfile.TemporaryDirectory(prefix="bench-nanogpt-") as scratch:
        scratch = Path(scratch)
        for preset in args.presets.split(","):
            sides = (str(preset_path(preset)), versus)
            corpus = tokenized(Path(sides[0]))
            if versus != "nanogpt" and tokenized(Path(versus)).tokenizer.to_dict() != \
                    corpus.tokenizer.to_dict():
                raise SystemExit(f"{versus} tokenizes its corpus differently from {preset}")
            pieces = heldout.corpus_test_pieces(corpus)
            blocks = heldout.heldout_blocks(corpus.ids, pieces)
            data = scratch / side_name(preset) / "workbench_chars"
            heldout.write_nanogpt_data(data, corpus.train, corpus.val, corpus.vocab_size)
            print(f"{side_name(preset)}: train {len(corpus.train):,} characters, validation "
                  f"{len(corpus.val):,}, held-out {len(blocks[0]):,} blocks of {heldout.BLOCK}",
                  flush=True)
            results = []
            for r in range(args.repeats):
                first = (r + args.swap_cores) % 2
                pair = (cores[first], cores[1 - first])
                folder = scratch / side_name(preset) / f"repeat-{r}"
                print(f" repeat {r + 1}: {side_name(sides[0])} on core {pair[0]}, "
                      f"{side_name(sides[1])} on core {pair[1]}, load {load()}", flush=True)
                run_pair(sides, nanogpt, data, marks, pair, folder, args.nanogpt_iters,
                         args.steps)
                results.append([score_side(folder / f"side-{k}", nanogpt, corpus, blocks,
                                           pieces, marks) for k in range(2)])
            report(sides, marks, results)
    print(f"load average at the end {load()}")


if __name__ == "__main__":
    main()
