"""Sequence to sequence: accuracy against wall time, the bottleneck curve, step time.

Run (one torch thread, as the issue asks; the machine is shared, so numbers are noisy):
  .venv/bin/python -m benchmarks.bench_seq2seq --accuracy 5      # dates: exact match vs time
  .venv/bin/python -m benchmarks.bench_seq2seq --bottleneck 3    # reversal: by input length
  .venv/bin/python -m benchmarks.bench_seq2seq --step-time 200   # trainer vs plain loop

- accuracy: the presets dates-additive and dates-plain (no attention, the same parameter
  count), trained headless as `workbench train` does, stopped after the given minutes of wall
  time; exact match on the 2,000 held-out dates at each validation, and when it first
  reached 99%.
- bottleneck: reverse-dot and the same model without attention at matched size, each given
  the same minutes; exact match by input length at the last validation.
- step time: the dates-additive model trained by the trainer (batches from the task, events,
  divergence guard) against a plain PyTorch loop of the same model on the same batches
  (forward, cross-entropy ignoring padding, backward, clip, AdamW), alternated, the median of
  the repeats; steps after the first 10 are timed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

RECIPES = Path(__file__).resolve().parents[1] / "resources" / "recipes"


def _load(name: str, **training):
    from workbench.core.training.recipe import load_recipe

    recipe = load_recipe(RECIPES / f"{name}.toml")
    recipe.training = dataclasses.replace(recipe.training, threads=1, device="cpu",
                                          checkpoint_every=100_000, **training)
    return recipe


def timed_run(recipe, minutes: float) -> list[tuple[float, int, dict, dict]]:
    """Train until `minutes` of wall time pass (or the steps end): (seconds, step, metrics,
    results) at each validation."""
    from workbench.core.events import EvalLogged
    from workbench.core.jobs import JobControl, JobSpec, drive
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    control = JobControl()
    spec = JobSpec(recipe.name, lambda c: recipe_train_steps(recipe, c, gui=False))
    start, rows = time.perf_counter(), []
    for event in drive(spec, control):
        now = time.perf_counter() - start
        if isinstance(event, EvalLogged):
            rows.append((now, event.step, event.metrics, event.results))
            print(f"  {recipe.name}: {now:6.1f} s step {event.step:5d} exact "
                  f"{event.metric('exact_match'):.4f} tokens "
                  f"{event.metric('token_accuracy'):.4f}", flush=True)
        if now > minutes * 60:
            control.stop()
    return rows


def accuracy(minutes: float) -> None:
    for name in ("dates-additive", "dates-plain"):
        rows = timed_run(_load(name, max_steps=100_000, sample_every=0), minutes)
        first = next(((t, s) for t, s, m, _ in rows if m["exact_match"] >= 0.99), None)
        best = max(m["exact_match"] for _, _, m, _ in rows)
        reached = f"{first[0]:.0f} s (step {first[1]})" if first else "not reached"
        print(f"{name}: >=99% at {reached}; last {rows[-1][2]['exact_match']:.4f} at "
              f"{rows[-1][0]:.0f} s (step {rows[-1][1]}); best {best:.4f}")


def matched_plain(recipe):
    """The recipe's model without attention, its hidden size matched to the parameter count."""
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.models.summary import matched_size, parameter_count
    from workbench.core.training_loop.recipe_run import task_data_steps

    data = run_to_end(task_data_steps(recipe, JobControl()))
    sized = dataclasses.replace(recipe.model, source_vocab_size=data.source_tokenizer.vocab_size,
                                target_vocab_size=data.target_tokenizer.vocab_size)
    plain = dataclasses.replace(sized, attention="none")
    width, params = matched_size(plain, parameter_count(sized))
    print(f"  matched size: hidden {width} without attention, {params:,} parameters against "
          f"{parameter_count(sized):,}")
    return dataclasses.replace(recipe.model, attention="none", hidden_size=width)


def bottleneck(minutes: float) -> None:
    attentive = _load("reverse-dot", max_steps=100_000, sample_every=0)
    plain = dataclasses.replace(attentive, name="reverse-plain", model=matched_plain(attentive))
    tables = {}
    for recipe in (attentive, plain):
        rows = timed_run(recipe, minutes)
        tables[recipe.name] = rows[-1][3]["accuracy_by_length"]
    lengths = tables["reverse-dot"]["length"]
    print("| input length | " + " | ".join(tables) + " |")
    print("|---|" + "---|" * len(tables))
    for i, n in enumerate(lengths):
        print(f"| {n} | " + " | ".join(f"{t['exact_match'][i]:.3f}" for t in tables.values())
              + " |")


def step_time(steps: int, repeats: int) -> None:
    import torch
    import torch.nn.functional as F

    from workbench.core.events import StepLogged
    from workbench.core.jobs import JobControl, drive, run_to_end
    from workbench.core.models import build_model
    from workbench.core.tasks import build_task
    from workbench.core.training_loop.recipe_run import task_data_steps
    from workbench.core.training_loop.trainer import TrainRequest, train_job

    torch.set_num_threads(1)
    recipe = _load("dates-additive", max_steps=steps, eval_every=100_000, sample_every=0,
                   log_every=10, warmup_steps=5)
    data = run_to_end(task_data_steps(recipe, JobControl()))
    task = build_task(recipe.task, data)

    def trainer() -> float:
        with tempfile.TemporaryDirectory() as folder:
            request = TrainRequest(data, recipe.model, recipe.training, run_dir=Path(folder),
                                   task=recipe.task, gui=False)
            logged = {e.step: e.elapsed_s for e in drive(train_job(request), JobControl())
                      if isinstance(e, StepLogged)}
        return (logged[steps] - logged[10]) / (steps - 10)

    def plain() -> float:
        torch.manual_seed(recipe.seed)
        model = build_model(dataclasses.replace(
            recipe.model, source_vocab_size=data.source_tokenizer.vocab_size,
            target_vocab_size=data.target_tokenizer.vocab_size))
        model.train()
        task.start(model, recipe.training, torch.device("cpu"))
        optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.training.lr,
                                      weight_decay=recipe.training.weight_decay)
        for step in range(steps):
            if step == 10:
                start = time.perf_counter()
            b = task.batch(step).to(torch.device("cpu"))
            logits = model(b["source"], b["source_mask"], b["target_in"])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                   b["target_out"].reshape(-1), ignore_index=-100)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.training.grad_clip)
            optimizer.step()
            loss.item()
        return (time.perf_counter() - start) / (steps - 10)

    ratios = []
    for repeat in range(repeats):
        ours, reference = trainer(), plain()
        ratios.append(ours / reference)
        print(f"  repeat {repeat + 1}: trainer {1000 * ours:.2f} ms/step, plain loop "
              f"{1000 * reference:.2f} ms/step, ratio {ours / reference:.3f}", flush=True)
    print(f"trainer / plain loop, median of {repeats}: {statistics.median(ratios):.3f} "
          f"(per repeat {', '.join(f'{r:.3f}' for r in ratios)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accuracy", type=float, metavar="MINUTES")
    parser.add_argument("--bottleneck", type=float, metavar="MINUTES")
    parser.add_argument("--step-time", type=int, metavar="STEPS")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("WORKBENCH_RUNS_DIR", tempfile.mkdtemp(prefix="bench-seq2seq-"))
    print(f"runs in {os.environ['WORKBENCH_RUNS_DIR']}; load {os.getloadavg()}", flush=True)
    if args.step_time:
        step_time(args.step_time, args.repeats)
    if args.accuracy:
        accuracy(args.accuracy)
    if args.bottleneck:
        bottleneck(args.bottleneck)
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
