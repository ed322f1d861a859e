"""Distributed data-parallel training: tokens/s of 1 and 2 CPU ranks (torchrun, gloo) against
one process with the same global batch, and of 1 GPU against the CPU when there is one.

Run: `.venv/bin/python -m benchmarks.bench_distributed [--steps 200] [--repeats 3]`

Every run is the real command (`workbench train PRESET`, with `--nproc N` for the torchrun
runs) on the char-GRU preset with a global batch of 32 windows of 64 characters: one process
with batch 32, and N ranks with batch 32/N each (the same global batch, so the same curve).
Validation, samples and checkpoints are pushed past the end, so the runs time training steps
only. Tokens/s is read from the run's own log: the tokens and active seconds between the first
logged step after warm-up (step 20) and the last. Runs alternate within each repeat; the table
gives medians and each torchrun run as a ratio to the one process of the same repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PRESET = Path("resources/recipes/char-gru.toml")
GLOBAL_BATCH = 32
WARM_STEP = 20


def recipe(folder: Path, batch: int, device: str = "cpu") -> Path:
    text = PRESET.read_text(encoding="utf-8")
    text = text.replace("batch_size = 32", f"batch_size = {batch}")
    for key, value in (("eval_every", 10**6), ("sample_every", 0), ("checkpoint_every", 10**6),
                       ("log_every", 10)):
        text = "\n".join(f"{key} = {value}" if line.startswith(f"{key} =") else line
                         for line in text.splitlines())
    text = text.replace('device = "auto"', f'device = "{device}"')
    path = folder / f"b{batch}-{device}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def tokens_per_s(run: Path) -> float:
    steps = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    steps = [s for s in steps if s["event"] == "step" and s["step"] >= WARM_STEP]
    first, last = steps[0], steps[-1]
    return (last["tokens_seen"] - first["tokens_seen"]) / (last["elapsed_s"] - first["elapsed_s"])


def train(folder: Path, name: str, args: list[str]) -> float:
    run = folder / name
    done = subprocess.run([sys.executable, "-m", "workbench", "train", *args, "--out", str(run)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-2000:]}")
    return tokens_per_s(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cores = os.cpu_count()
    print(f"cores: {cores}; load before: {os.popen('uptime').read().strip()}")
    folder = Path(tempfile.mkdtemp(prefix="bench-ddp-"))
    os.environ["WORKBENCH_RUNS_DIR"] = str(folder / "runs")
    steps = ["--max-steps", str(args.steps)]
    runs = {  # name: arguments; "auto" threads: all cores for one process, shared by ranks
        "one process, batch 32, all cores": [str(recipe(folder, GLOBAL_BATCH)), *steps],
        "one process, batch 32, 1 thread": [str(recipe(folder, GLOBAL_BATCH)), *steps,
                                            "--threads", "1"],
        "torchrun 1 rank, batch 32": [str(recipe(folder, GLOBAL_BATCH)), *steps, "--nproc", "1"],
        "torchrun 2 ranks, batch 16 each": [str(recipe(folder, GLOBAL_BATCH // 2)), *steps,
                                            "--nproc", "2"],
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    ratios: dict[str, list[float]] = {name: [] for name in runs}
    for repeat in range(args.repeats):
        for index, (name, run_args) in enumerate(runs.items()):
            rates[name].append(train(folder, f"r{repeat}-{index}", run_args))
        base = rates["one process, batch 32, all cores"][-1]
        for name in runs:
            ratios[name].append(rates[name][-1] / base)
        print(f"repeat {repeat + 1}: " + ", ".join(f"{n}: {r[-1]:,.0f}" for n, r in
                                                    rates.items()), flush=True)
    print(f"load after: {os.popen('uptime').read().strip()}")
    print("| run | tokens/s (median) | ratio to one process, all cores (median; each repeat) |")
    print("|---|---|---|")
    for name in runs:
        each = ", ".join(f"{r:.2f}" for r in ratios[name])
        print(f"| {name} | {statistics.median(rates[name]):,.0f} | "
              f"{statistics.median(ratios[name]):.2f} ({each}) |")
    gpu(folder, steps, statistics.median(rates["one process, batch 32, all cores"]))


def gpu(folder: Path, steps: list[str], cpu_rate: float) -> None:
    import torch

    if not torch.cuda.is_available():
        print("GPU: skipped: torch.cuda.is_available() is False on this machine (no CUDA GPU, "
              "or a CPU-only torch build). Run this benchmark on a GPU machine for 1 GPU "
              "against the CPU.")
        return
    rate = train(folder, "gpu", [str(recipe(folder, GLOBAL_BATCH, "cuda")), *steps])
    print(f"GPU ({torch.cuda.get_device_name(0)}), batch 32: {rate:,.0f} tokens/s, "
          f"{rate / cpu_rate:.1f}x one CPU process with all cores")


if __name__ == "__main__":
    main()
