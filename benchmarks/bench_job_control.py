"""Stop and pause within one training step, and what looking at the control every step costs.

Run: `.venv/bin/python -m benchmarks.bench_job_control [--steps 120] [--repeats 5] [--stops 8]`

- cost: the same training request (the char-LSTM of bench_training, batch 32 × 64, one torch
  thread, logging every 10 steps) driven with the control handed to the trainer (it looks at
  stop and pause before every step) and without (the driver looks only between events, as
  before), alternated in one process; the ratio of their tokens per second, and the time of
  one look at the control against the time of one step;
- latency: the same run on a thread; at a random moment the GUI side calls stop() (or pause())
  and we time until the trainer ends (JobCancelled, after the step in flight and the latest
  checkpoint's save) or stops taking steps. Reported in steps and in seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time

from benchmarks.bench_training import model_config, model_hooks, shipped_tokens


def request(tokens, steps: int, tmp: str):
    from workbench.core.config.training import TrainingConfig
    from workbench.core.training_loop.trainer import TrainRequest

    training = TrainingConfig(batch_size=32, seq_len=64, max_steps=steps, eval_every=10 * steps,
                              sample_every=0, log_every=10, checkpoint_every=10 * steps,
                              warmup_steps=10, threads=1, device="cpu")
    return TrainRequest(tokens, model_config(tokens.vocab_size), training, run_dir=None,
                        run_name="bench-control", hooks=model_hooks()[0])


def timed_run(tokens, steps: int, tmp: str, with_control: bool) -> float:
    from workbench.core.events import StepLogged
    from workbench.core.jobs import JobControl, JobSpec, drive
    from workbench.core.training_loop.trainer import train_steps

    control = JobControl()
    spec = JobSpec("bench", lambda c: train_steps(request(tokens, steps, tmp),
                                                  c if with_control else None))
    first = last = None
    for event in drive(spec, control):
        if isinstance(event, StepLogged):
            first = first or (event.step, event.elapsed_s)
            last = (event.step, event.elapsed_s)
    return (last[0] - first[0]) * 32 * 64 / (last[1] - first[1])


def look_cost(repeats: int = 200_000) -> float:
    from workbench.core.jobs import JobControl
    from workbench.core.training_loop.trainer import Trainer

    probe = Trainer.__new__(Trainer)
    probe.control, probe._since = JobControl(), 0.0
    start = time.perf_counter()
    for _ in range(repeats):
        probe._between_steps()
    return (time.perf_counter() - start) / repeats


def latency(tokens, steps: int, tmp: str, pause: bool, per_step: bool = True
            ) -> tuple[float, int, float]:
    """(seconds from the request until the trainer stopped, steps begun meanwhile, mean step
    time) for a stop (or pause) asked at a random moment; `per_step` False is the driver alone
    looking between events (before the trainer looked every step)."""
    from workbench.core.events import JobCancelled, Progress
    from workbench.core.jobs import JobControl, JobSpec, drive
    from workbench.core.training_loop.trainer import train_steps

    control = JobControl()
    req = request(tokens, steps, tmp)
    hooks = req.hooks
    counted = {"steps": 0}

    def build(config):  # count forward passes: one per training step
        model = hooks.build(config)
        forward = model.forward

        def counting(*args, **kwargs):
            if model.training:
                counted["steps"] += 1
            return forward(*args, **kwargs)
        model.forward = counting
        return model
    req.hooks = type(hooks)(build, hooks.snapshot)
    ended = threading.Event()
    ended_at = [0.0]

    def run():
        spec = JobSpec("bench", lambda c: train_steps(req, c if per_step else None))
        for event in drive(spec, control):
            if isinstance(event, (JobCancelled,)):
                ended_at[0] = time.perf_counter()
            if isinstance(event, Progress) and event.total:
                pass
        ended.set()
    thread = threading.Thread(target=run)
    thread.start()
    while counted["steps"] < 20:
        time.sleep(0.01)
    started, at_start = time.perf_counter(), counted["steps"]
    time.sleep(random.uniform(0.5, 2.0))
    step_time = (time.perf_counter() - started) / max(counted["steps"] - at_start, 1)
    before = counted["steps"]
    asked = time.perf_counter()
    if pause:
        control.pause()
        last, since = counted["steps"], time.perf_counter()
        while time.perf_counter() - since < 12 * step_time + 0.5:  # no new step for a while
            if counted["steps"] != last:
                last, since = counted["steps"], time.perf_counter()
            time.sleep(0.002)
        took, moved = since - asked, counted["steps"] - before
        control.stop()
    else:
        control.stop()
        ended.wait(60)
        took, moved = ended_at[0] - asked, counted["steps"] - before
    thread.join(60)
    return took, moved, step_time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--stops", type=int, default=8)
    args = parser.parse_args()
    import tempfile

    _, tokens = shipped_tokens()
    with tempfile.TemporaryDirectory() as tmp:
        import os

        os.environ["WORKBENCH_RUNS_DIR"] = tmp
        ratios = []
        for repeat in range(args.repeats):
            with_control = timed_run(tokens, args.steps, tmp, True)
            without = timed_run(tokens, args.steps, tmp, False)
            ratios.append(with_control / without)
            print(f"repeat {repeat + 1}: with control {with_control:,.0f} tok/s, without "
                  f"{without:,.0f} tok/s, ratio {ratios[-1]:.3f}", flush=True)
        look = look_cost()
        print(f"\nthroughput ratio with/without the per-step look (median of {args.repeats}): "
              f"{statistics.median(ratios):.3f} ({', '.join(f'{r:.3f}' for r in ratios)})")
        print(f"one look at the control: {look * 1e9:.0f} ns")
        for pause, per_step in ((False, True), (True, True), (False, False)):
            rows = [latency(tokens, 10_000, tmp, pause, per_step) for _ in range(args.stops)]
            what = ("pause" if pause else "stop") + ("" if per_step else
                                                     " (driver only, as before)")
            took = [r[0] for r in rows]
            moved = [r[1] for r in rows]
            step = statistics.median(r[2] for r in rows)
            print(f"{what}: median {statistics.median(took) * 1000:.0f} ms, max "
                  f"{max(took) * 1000:.0f} ms; steps begun after the request: max {max(moved)} "
                  f"(a step takes {step * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
