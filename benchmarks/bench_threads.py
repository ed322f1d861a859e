"""Training with one torch thread or two, and how OpenMP's threads wait (issue 18, item 4).

    .venv/bin/python -m benchmarks.bench_threads [--steps 60] [--repeats 3]
        [--presets lstm,transformer] [--modes 1,2,2-passive,2-interop1]

Each run is a fresh process (OpenMP reads OMP_WAIT_POLICY once, when torch loads) training the
preset's model in a plain torch loop (embedding, model, cross-entropy, backward, clip, AdamW)
on random character ids, batch and sequence length as in the preset. Modes:

- `1`: one intra-op thread (the window's default on a 2-core machine);
- `2`: two threads, OpenMP's default wait policy (its threads spin a while after each
  parallel region, waiting for the next);
- `2-passive`: two threads, OMP_WAIT_POLICY=PASSIVE (an idle thread sleeps at once);
- `2-interop1`: two intra-op threads and one inter-op thread;
- `2-spin10k`, `2-spin100k`: two threads that spin 10,000 or 100,000 times before they sleep
  (GOMP_SPINCOUNT, read by the GNU OpenMP that torch's Linux wheels ship; the default spins
  300,000 times, PASSIVE not at all): long enough to catch the next small kernel of a step,
  short enough to give the core back between steps.

Tokens/s are medians; the modes run in turn, rotated every repeat, so load drifts hit them all
alike. Read the ratio to mode `1` of the same repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODES = {"1": (1, {}), "2": (2, {}), "2-passive": (2, {"OMP_WAIT_POLICY": "PASSIVE"}),
         "2-interop1": (2, {"INTEROP": "1"}),
         "2-spin10k": (2, {"GOMP_SPINCOUNT": "10000"}),
         "2-spin100k": (2, {"GOMP_SPINCOUNT": "100000"})}


def child(preset: str, threads: int, steps: int) -> None:
    """Train `steps` steps (after 5 warm-up steps) and print the tokens/s as JSON."""
    import dataclasses

    import torch
    import torch.nn.functional as F

    from workbench.core.models import build_model
    from workbench.core.resources import resources_root
    from workbench.core.training.recipe import load_recipe

    torch.set_num_threads(threads)
    if os.environ.get("INTEROP"):
        torch.set_num_interop_threads(int(os.environ["INTEROP"]))
    recipe = load_recipe(resources_root() / "recipes" / f"char-{preset}.toml")
    torch.manual_seed(0)
    model = build_model(dataclasses.replace(recipe.model, vocab_size=70)).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch, seq = recipe.training.batch_size, recipe.training.seq_len
    data = torch.randint(4, 70, (steps + 5, batch, seq + 1))

    def step(k: int) -> None:
        x, y = data[k, :, :-1], data[k, :, 1:]
        logits, _ = model(x, None)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    for k in range(5):
        step(k)
    start = time.perf_counter()
    for k in range(5, steps + 5):
        step(k)
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens_per_s": steps * batch * seq / seconds,
                      "threads": torch.get_num_threads()}))


def run(preset: str, mode: str, steps: int) -> float:
    threads, env = MODES[mode]
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_threads", "--child", preset,
                          str(threads), str(steps)], env={**os.environ, **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["tokens_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--presets", default="lstm,transformer")
    parser.add_argument("--modes", default="1,2,2-passive,2-interop1")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    modes = args.modes.split(",")
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores", flush=True)
    for preset in args.presets.split(","):
        rates: dict[str, list[float]] = {m: [] for m in modes}
        ratios: dict[str, list[float]] = {m: [] for m in modes}
        for r in range(args.repeats):
            order = modes[r % len(modes):] + modes[:r % len(modes)]
            got = {m: run(preset, m, args.steps) for m in order}
            for m in modes:
                rates[m].append(got[m])
                ratios[m].append(got[m] / got[modes[0]])
        for m in modes:
            print(f"char-{preset} mode {m:>10}: {statistics.median(rates[m]):8.0f} tokens/s, "
                  f"÷ mode {modes[0]} {statistics.median(ratios[m]):.2f} (per repeat "
                  f"{', '.join(f'{x:.2f}' for x in ratios[m])})", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
