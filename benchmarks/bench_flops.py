"""Training FLOP/s of the char presets against the core's matmul peak, in one run (issue 18,
item 4).

    .venv/bin/python -m benchmarks.bench_flops [--steps 200] [--presets rnn,lstm,gru,transformer]
        [--parts presets,dropout,compile,profile]

One torch thread throughout, and every time is CPU time (`time.process_time`): on a quiet core
it is the wall time, and on a machine shared with other work it leaves out the time the
process waited for a core, so the ratios hold under load. **Peak**: a 1536 x 1536 fp32
matmul, the best of five, measured again before every preset (the median is the reference).
**Presets** (`presets`): each shipped char preset trained by the headless trainer as the
window trains it (one thread, the recipe as shipped, `--steps` steps; tokens per CPU second
from its 20th step to its last, validations included) and by a bare loop of
the same model (forward, cross-entropy, backward, clipping, AdamW; random ids). FLOPs per
token are the model summary's forward estimate (core/models/summary.py: 2 per multiply-add of
every linear map and recurrent weight, plus attention's scores and mixing) times 3 for a
training step (the backward pass costs about twice the forward).
**Dropout** (`dropout`): the transformer preset's bare step with dropout 0.1 and 0.0 in turn.
**Compile** (`compile`): the transformer preset's bare step eager and under `torch.compile`
(the compile time is reported apart). **Profile** (`profile`): torch.profiler's table of
the transformer preset's bare steps, the operators that take the most time.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

PRESETS = ("rnn", "lstm", "gru", "transformer")


def peak_flops(n: int = 1536, repeats: int = 5) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        a @ b
        best = min(best, time.process_time() - start)
    return 2 * n**3 / best


def recipe_of(preset: str):
    from workbench.core.resources import resources_root
    from workbench.core.training.recipe import load_recipe

    return load_recipe(resources_root() / "recipes" / f"char-{preset}.toml")


def training_flops_per_token(model_config, recipe) -> int:
    from workbench.core.models.summary import summarize

    summary = summarize(model_config, batch_size=recipe.training.batch_size,
                        seq_len=recipe.training.seq_len)
    return 3 * summary.flops_per_token


class BareLoop:
    """The preset's model trained by the plainest loop torch allows, on random ids."""

    def __init__(self, model_config, recipe, compiled: bool = False) -> None:
        from workbench.core.models import build_model

        torch.manual_seed(0)
        self.model = build_model(model_config).train()
        self.forward = torch.compile(self.model) if compiled else self.model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.batch, self.seq = recipe.training.batch_size, recipe.training.seq_len
        self.vocab = model_config.vocab_size

    def step(self) -> None:
        data = torch.randint(0, self.vocab, (self.batch, self.seq + 1))
        logits, _ = self.forward(data[:, :-1], None)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), data[:, 1:].reshape(-1))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()

    def seconds_per_step(self, steps: int, warmup: int = 5) -> float:
        for _ in range(warmup):
            self.step()
        times = []
        for _ in range(steps):
            start = time.process_time()
            self.step()
            times.append(time.process_time() - start)
        return statistics.median(times)


def trainer_tokens_per_s(recipe, steps: int) -> float:
    """Tokens per CPU second of the headless trainer on the recipe (one thread), from its
    logged step after the 20th to its last (validations inside are counted)."""
    from workbench.core.events import StepLogged
    from workbench.core.jobs import JobControl
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    recipe.training = dataclasses.replace(recipe.training, threads=1, max_steps=steps)
    first = last = None
    with tempfile.TemporaryDirectory(prefix="bench-flops-") as folder:
        for event in recipe_train_steps(recipe, JobControl(), Path(folder), gui=False):
            if isinstance(event, StepLogged) and event.step > 20:
                last = (event.tokens_seen, time.process_time())
                first = first or last
    return (last[0] - first[0]) / (last[1] - first[1])


def measure_presets(presets: list[str], vocab: int, steps: int) -> None:
    peaks = []
    rows = []
    for preset in presets:
        peaks.append(peak_flops())
        recipe = recipe_of(preset)
        config = dataclasses.replace(recipe.model, vocab_size=vocab)
        flops = training_flops_per_token(config, recipe)
        tokens = recipe.training.batch_size * recipe.training.seq_len
        bare = tokens / BareLoop(config, recipe).seconds_per_step(max(20, steps // 5))
        trainer = trainer_tokens_per_s(recipe, steps)
        rows.append((preset, flops, trainer, bare))
    peaks.append(peak_flops())
    peak = statistics.median(peaks)
    print(f"fp32 matmul peak, one thread: {peak / 1e9:.1f} GFLOP/s (median; each "
          f"{', '.join(f'{p / 1e9:.0f}' for p in peaks)})")
    print("preset | training FLOPs/token | trainer tok/s | GFLOP/s | ÷ peak | bare loop tok/s "
          "| GFLOP/s | ÷ peak | trainer ÷ bare")
    for preset, flops, trainer, bare in rows:
        print(f"char-{preset} | {flops / 1e6:.2f} M | {trainer:,.0f} | "
              f"{trainer * flops / 1e9:.1f} | "
              f"{trainer * flops / peak:.2f} | {bare:,.0f} | {bare * flops / 1e9:.1f} | "
              f"{bare * flops / peak:.2f} | {trainer / bare:.2f}", flush=True)


def transformer_config(vocab: int, **changes):
    recipe = recipe_of("transformer")
    return dataclasses.replace(recipe.model, vocab_size=vocab, **changes), recipe


def measure_dropout(vocab: int, steps: int, repeats: int = 3) -> None:
    times: dict[float, list[float]] = {0.1: [], 0.0: []}
    for r in range(repeats):
        for p in ((0.1, 0.0) if r % 2 == 0 else (0.0, 0.1)):
            config, recipe = transformer_config(vocab, dropout=p)
            times[p].append(BareLoop(config, recipe).seconds_per_step(steps))
    for p, values in times.items():
        print(f"transformer preset, dropout {p}: {statistics.median(values) * 1e3:.1f} ms CPU "
              f"a step "
              f"(each {', '.join(f'{v * 1e3:.1f}' for v in values)})")
    print(f"dropout 0.1 ÷ 0.0: {statistics.median(times[0.1]) / statistics.median(times[0.0]):.2f}",
          flush=True)


def measure_compile(vocab: int, steps: int, repeats: int = 3) -> None:
    config, recipe = transformer_config(vocab)
    eager, compiled = BareLoop(config, recipe), BareLoop(config, recipe, compiled=True)
    start = time.perf_counter()
    try:
        compiled.step()
    except Exception as exc:  # noqa: BLE001 - a compiler missing here is a result to report
        print(f"torch.compile failed on this machine: {type(exc).__name__}: {exc}"[:600])
        return
    print(f"torch.compile: first step (compiling) {time.perf_counter() - start:.1f} s")
    times: dict[str, list[float]] = {"eager": [], "compiled": []}
    for _ in range(repeats):
        times["eager"].append(eager.seconds_per_step(steps))
        times["compiled"].append(compiled.seconds_per_step(steps))
    for name, values in times.items():
        print(f"transformer preset {name}: {statistics.median(values) * 1e3:.1f} ms CPU a step "
              f"(each {', '.join(f'{v * 1e3:.1f}' for v in values)})")
    print(f"eager ÷ compiled (speed-up): "
          f"{statistics.median(times['eager']) / statistics.median(times['compiled']):.2f}",
          flush=True)


def profile_transformer(vocab: int, steps: int) -> None:
    from torch.profiler import ProfilerActivity, profile

    config, recipe = transformer_config(vocab)
    loop = BareLoop(config, recipe)
    loop.seconds_per_step(2)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            loop.step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--parts", default="presets,dropout,compile")
    args = parser.parse_args()
    torch.set_num_threads(1)
    vocab = recipe_vocab()
    parts = args.parts.split(",")
    print(f"load average {load()}, {os.cpu_count()} cores, torch {torch.__version__}, "
          f"one thread; vocabulary {vocab}", flush=True)
    if "presets" in parts:
        measure_presets(args.presets.split(","), vocab, args.steps)
    if "dropout" in parts:
        measure_dropout(vocab, max(20, args.steps // 5))
    if "compile" in parts:
        measure_compile(vocab, max(20, args.steps // 5))
    if "profile" in parts:
        profile_transformer(vocab, 20)
    print(f"load average {load()}")


def recipe_vocab() -> int:
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.tasks.language_model import corpus_tokens_steps

    return run_to_end(corpus_tokens_steps(recipe_of("lstm"), JobControl())).vocab_size


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
