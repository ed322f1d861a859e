"""Training: throughput through the job thread, GUI stalls while training, curve redraw cost.

Run: `.venv/bin/python -m benchmarks.bench_training [--steps 150] [--repeats 3]` (offscreen).
     `.venv/bin/python -m benchmarks.bench_training --quality MINUTES [--presets a,b]` for the
     quality table.

- throughput: tokens/s of the trainer run as the controller's job in the real main window
  (shown, event loop turning, curves redrawing) against a plain PyTorch loop (forward,
  cross-entropy, backward, clip, AdamW step) on the same model, batch, data and torch thread
  count, in the same process, alternated, median of the repeats;
- responsiveness: a 5 ms QTimer on the GUI thread while the window trains; a stall is a gap
  between ticks; p99 and max, for 1 torch thread and for all cores (the choice in setup.py);
- redraw: `CurvesView.redraw()` plus a synchronous repaint of the whole view, with 100k logged
  points per curve, one new point per update (`--redraw-only` runs just this);
- quality (--quality): validation loss after N minutes of each preset, and of a plain PyTorch
  char-LSTM loop given the same minutes on the same data.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

CHAR_LSTM = {"arch": "lstm", "embedding_size": 64, "hidden_size": 256, "num_layers": 1}


def shipped_tokens():
    from workbench.core.config.tokenizer import TokenizerConfig
    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.corpus.loading import load_corpus
    from workbench.core.events import JobFinished
    from workbench.core.jobs import JobControl
    from workbench.core.resources import default_corpus_path

    corpus = load_corpus(default_corpus_path())
    for event in tokenize_job(corpus, TokenizerConfig(kind="char")).job(JobControl()):
        if isinstance(event, JobFinished):
            return corpus, event.result
    raise RuntimeError("tokenizing gave no result")


def model_hooks():
    """The model zoo's builder; until it is in this tree, a local char-LSTM that follows the
    same protocol (fused nn.LSTM, as the zoo's fast path), so both sides use the same model."""
    from workbench.core.training.evaluation import ModelHooks

    try:
        return ModelHooks.default(), "model zoo"
    except ImportError:
        pass
    import torch
    from torch import nn

    from workbench.core.snapshot import Snapshot

    class BenchLstmLm(nn.Module):
        supports_state = True

        def __init__(self, config) -> None:
            super().__init__()
            self.config = config
            self.embed = nn.Embedding(config.vocab_size, config.embedding_size)
            self.rnn = nn.LSTM(config.embedding_size, config.hidden_size, config.num_layers,
                               batch_first=True)
            self.out = nn.Linear(config.hidden_size, config.vocab_size)

        def init_state(self, batch_size):
            shape = (self.config.num_layers, batch_size, self.config.hidden_size)
            return (torch.zeros(shape), torch.zeros(shape))

        def detach_state(self, state):
            return tuple(s.detach() for s in state)

        def forward(self, tokens, state=None):
            hidden, state = self.rnn(self.embed(tokens), state)
            return self.out(hidden), state  # (B, T, V)

    def snapshot(model, tokenizer, step, metrics, run_name):
        weights = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
        return Snapshot({"arch": "lstm"}, weights, tokenizer, step, dict(metrics), run_name)

    return ModelHooks(BenchLstmLm, snapshot), "local nn.LSTM LM (model zoo not in the tree)"


def model_config(vocab_size: int, spec: dict = CHAR_LSTM):
    from workbench.core.config.models import config_from_dict

    return dataclasses.replace(config_from_dict(spec), vocab_size=vocab_size)


def plain_loop(tokens, config, training, steps: int, seconds: float | None = None) -> dict:
    """The reference: the simplest correct TBPTT loop, written as anyone would."""
    import numpy as np
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(training.threads)
    torch.manual_seed(training.seed)
    model = model_hooks()[0].build(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=training.lr,
                                  weight_decay=training.weight_decay)
    B, T = training.batch_size, training.seq_len
    rows = torch.from_numpy(np.asarray(tokens.train[: len(tokens.train) // B * B])).view(B, -1)
    state, position, done = None, 0, 0
    start = time.perf_counter()
    while done < steps and (seconds is None or time.perf_counter() - start < seconds):
        if position + T + 1 > rows.shape[1]:
            position, state = 0, None
        chunk = rows[:, position: position + T + 1]
        logits, state = model(chunk[:, :-1], state)
        state = model.detach_state(state)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), training.grad_clip)
        optimizer.step()
        position += T
        done += 1
    elapsed = time.perf_counter() - start
    return {"tok_s": done * B * T / elapsed, "model": model, "steps": done}


class Probe:
    """Gaps between ticks of a 5 ms timer on the GUI thread."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.ticks: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def stats(self) -> dict:
        gaps = sorted(b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False)) or [0.0]
        return {"p99_ms": 1000 * gaps[int(0.99 * (len(gaps) - 1))], "max_ms": 1000 * gaps[-1]}


def window_run(app, window, tokens, config, training) -> dict:
    """Train through the controller's job thread with the window open; tokens/s as the GUI
    receives the step events (wall clock between the first and last logged step)."""
    from workbench.core.events import StepLogged

    controller = window.controller
    received: list[tuple[float, int]] = []

    def on_event(event):
        if isinstance(event, StepLogged):
            received.append((time.perf_counter(), event.tokens_seen))

    controller.job_event.connect(on_event)
    corpus = controller.corpus
    spec = controller.backend.training.train_job(corpus, tokens, config, training)
    probe = Probe()
    panel = window.panels["training"]
    panel.timer.start()  # the curves redraw at ~30 Hz as they would while training
    # The GUI thread waits in an event loop as in the app (app.exec()), not in a polling loop:
    # polling every millisecond took the GIL a thousand times a second from the job thread.
    from PySide6.QtCore import QEventLoop

    loop = QEventLoop()

    def on_busy(busy: bool) -> None:
        if not busy:
            loop.quit()

    controller.jobs.busy_changed.connect(on_busy)
    assert controller.run_job(spec)
    probe.timer.start()
    if controller.jobs.busy:
        loop.exec()
    probe.timer.stop()
    panel.timer.stop()
    controller.jobs.busy_changed.disconnect(on_busy)
    controller.job_event.disconnect(on_event)
    (t0, n0), (t1, n1) = received[1], received[-1]  # from the 2nd log: set-up left out
    return {"tok_s": (n1 - n0) / (t1 - t0), **probe.stats()}


def throughput_and_stalls(steps: int, repeats: int) -> None:
    from PySide6.QtWidgets import QApplication

    from workbench.app.backend import Backend
    from workbench.app.training_backend import TrainingBackend
    from workbench.app.window import build_window
    from workbench.core.config.training import TrainingConfig

    app = QApplication.instance() or QApplication([])
    corpus, tokens = shipped_tokens()
    hooks, source = model_hooks()
    print(f"model: {source}")
    window = build_window(backend=Backend(training=TrainingBackend(hooks=hooks)))
    window.show()
    window.controller.set_corpus(corpus)  # the Corpus panel tokenizes it: let that finish
    from workbench.app.window import settle

    settle(window)
    window.controller.set_tokens(tokens)
    config = model_config(tokens.vocab_size)
    counts = sorted({1, os.cpu_count() or 1})
    plain: dict[int, list] = {n: [] for n in counts}
    windowed: dict[int, list] = {n: [] for n in counts}
    for repeat in range(repeats):
        for threads in counts:
            training = TrainingConfig(batch_size=32, seq_len=64, max_steps=steps,
                                      eval_every=10 * steps, sample_every=0, log_every=10,
                                      checkpoint_every=10 * steps, warmup_steps=10,
                                      threads=threads, device="cpu")
            plain[threads].append(plain_loop(tokens, config, training, steps)["tok_s"])
            windowed[threads].append(window_run(app, window, tokens, config, training))
            w = windowed[threads][-1]
            print(f"repeat {repeat + 1}, {threads} thread(s): plain {plain[threads][-1]:,.0f} "
                  f"tok/s, window {w['tok_s']:,.0f} tok/s, GUI gaps p99 {w['p99_ms']:.1f} ms, "
                  f"max {w['max_ms']:.0f} ms", flush=True)
    median = statistics.median
    print("\n| torch threads | plain loop tok/s | window job tok/s | ratio (median of "
          "per-repeat ratios) | GUI p99 gap (ms) | GUI max gap (ms) |")
    print("|---|---|---|---|---|---|")
    for n in counts:
        ratios = [w["tok_s"] / p for w, p in zip(windowed[n], plain[n], strict=True)]
        print(f"| {n} | {median(plain[n]):,.0f} | {median(w['tok_s'] for w in windowed[n]):,.0f}"
              f" | {median(ratios):.3f} ({', '.join(f'{r:.3f}' for r in ratios)}) | "
              f"{median(w['p99_ms'] for w in windowed[n]):.1f} | "
              f"{max(w['max_ms'] for w in windowed[n]):.0f} |")
    window.close()


def redraw_cost(repeats: int = 20) -> None:
    """GUI-thread time of one curve update: `redraw()` (EMA, decimation, setData) and the
    synchronous repaint of the six plots it causes, with 100k and with 1k logged points."""
    import numpy as np
    from PySide6.QtWidgets import QApplication

    from workbench.core.events import StepLogged
    from workbench.qt.panels.training.curves import CurvesView
    from workbench.qt.panels.training.series import RunSeries

    app = QApplication.instance() or QApplication([])
    print("\n| logged points | redraw() median (ms) | + repaint median (ms) | max (ms) |")
    print("|---|---|---|---|")
    for points in (100_000, 1_000):
        view = CurvesView()
        view.resize(1000, 500)
        view.show()
        series = RunSeries("bench", "bench", "#0072B2")
        rng = np.random.default_rng(0)
        loss = 4 * np.exp(-np.arange(points) / points * 5) + 1 + 0.05 * rng.standard_normal(
            points)
        for i in range(points):
            series.add(StepLogged(i + 1, float(loss[i]), 1e-3 * (1 + i / points), 0.5, False,
                                  2048 * (i + 1), 5e4 + i, 0.05 * i))
        view.set_runs([series])
        for _ in range(5):  # let the axes settle their widths, as a shown window does
            app.processEvents()
            time.sleep(0.02)
        data, total = [], []
        for i in range(repeats):
            series.add(StepLogged(points + i + 1, 1.0, 1e-3, 0.5, False,
                                  2048 * (points + i + 1), 5e4, 0.05 * (points + i)))
            start = time.perf_counter()
            view.redraw()
            middle = time.perf_counter()
            view.graphics.viewport().repaint()
            end = time.perf_counter()
            data.append(1000 * (middle - start))
            total.append(1000 * (end - start))
        print(f"| {points:,} | {statistics.median(data):.1f} | {statistics.median(total):.1f} "
              f"| {max(total):.1f} |")
        view.close()


def quality(minutes: float, names: list[str] | None = None) -> None:
    """Validation loss after `minutes` of each preset (or the named ones), and of the plain
    loop given the same minutes, on this CPU."""
    from workbench.core.cpu_threads import choose_threads
    from workbench.core.events import EvalLogged
    from workbench.core.jobs import JobControl, JobSpec, drive
    from workbench.core.resources import resource_path
    from workbench.core.training.batches import validation_windows
    from workbench.core.training.evaluation import evaluate
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    rows = []
    for preset in sorted(resource_path("recipes").glob("*.toml")):
        if names and preset.stem not in names:
            continue
        recipe = load_recipe(preset)
        control = JobControl()
        best, start = None, time.perf_counter()
        spec = JobSpec(recipe.name, lambda c, r=recipe: recipe_train_steps(r, c))
        for event in drive(spec, control):
            if isinstance(event, EvalLogged):
                best = event
                if time.perf_counter() - start > 60 * minutes:
                    control.stop()
        rows.append((recipe.name, best.step, best.val_loss, best.bits_per_token,
                     time.perf_counter() - start))
        print(rows[-1], flush=True)
    corpus, tokens = shipped_tokens()
    recipe = load_recipe(resource_path("recipes", "char-lstm.toml"))
    training = dataclasses.replace(recipe.training, threads=choose_threads(0))
    config = model_config(tokens.vocab_size)
    result = plain_loop(tokens, config, training, 10**9, seconds=60 * minutes)
    import torch

    windows = validation_windows(tokens.val, training.batch_size, training.seq_len,
                                 training.eval_batches)
    val = evaluate(result["model"], windows, torch.device("cpu"), False)
    rows.append(("plain PyTorch char-LSTM (constant lr)", result["steps"], val,
                 val / 0.6931471805599453, 60 * minutes))
    print(f"\nquality, at most {minutes:g} min per run:\n| run | steps | val loss (nats/char) "
          "| bits/char | wall time (s) |\n|---|---|---|---|---|")
    for name, step, loss, bits, seconds in rows:
        print(f"| {name} | {step} | {loss:.3f} | {bits:.3f} | {seconds:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quality", type=float, metavar="MINUTES")
    parser.add_argument("--presets", help="with --quality: comma-separated preset names")
    parser.add_argument("--redraw-only", action="store_true", help="only the curve redraw")
    args = parser.parse_args()
    # Every run the benchmark starts (window runs, presets) goes to a folder of its own, not
    # the user's run list; kept, to open in the Training panel afterwards.
    import tempfile

    from workbench.core.training.runs import RUNS_ENV

    if not os.environ.get(RUNS_ENV):
        os.environ[RUNS_ENV] = tempfile.mkdtemp(prefix="workbench-bench-runs-")
    print(f"run folders in {os.environ[RUNS_ENV]}")
    if args.quality:
        quality(args.quality, args.presets.split(",") if args.presets else None)
        return
    if not args.redraw_only:
        throughput_and_stalls(args.steps, args.repeats)
    redraw_cost()


if __name__ == "__main__":
    main()
