"""Soak: an hour of training in the real window with the four inspectors open and probing.
Does memory creep, and does the window ever freeze?

Run: `.venv/bin/python -m benchmarks.bench_soak [--minutes 60]` (offscreen; runs go to a
temporary folder). Goals: RSS growth ≤ 10% from the end of warm-up to the end, longest GUI
stall ≤ 100 ms.

The window loads the shipped Shakespeare, character tokens, an LSTM 1x256, and trains with
validation (a snapshot) every 50 steps; the gates, attention, gradients and next-token
inspectors are shown and probe each snapshot (at most every few seconds, as in the app), and
the training curves redraw. A 10 ms QTimer on the GUI thread measures stalls (the longest gap
between two ticks, minus the 10 ms interval); the process's resident set size is sampled every
10 s. Warm-up is the first tenth of the run (at least 2 minutes): imports, allocator growth
and the curves' first buffers are not a leak. Training restarts as a new run when it
finishes, so the hour is all training.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

INSPECTORS = ("gates", "attention", "gradients", "nexttoken")


def rss_mb() -> float:
    """Resident set size of this process (Linux /proc; psutil elsewhere)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import psutil

        return psutil.Process().memory_info().rss / 2**20


def watch_collections() -> list[float]:
    """Durations of Python's full (generation 2) garbage collections from now on, on any
    thread: a collection holds the GIL, so a long one stalls the window."""
    import gc

    pauses: list[float] = []
    started = [0.0]

    def on_collect(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - started[0])

    gc.callbacks.append(on_collect)
    return pauses


def census(docks, names) -> str:
    """What each window holds: graphics items and data points in its plots, text blocks in its
    text views. A count that grows with the runs is where paint time grows."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

    parts = []
    for name in names:
        items = points = blocks = 0
        for view in docks[name].findChildren(pg.GraphicsView):
            for item in view.scene().items():
                items += 1
                if isinstance(item, pg.ScatterPlotItem | pg.PlotCurveItem):
                    data = item.getData()
                    points += 0 if data[0] is None else len(data[0])
        for text in docks[name].findChildren(QTextEdit) + docks[name].findChildren(QPlainTextEdit):
            blocks += text.document().blockCount()
        parts.append(f"{name} {items} items/{points} points/{blocks} blocks")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--gui-first", action="store_true",
                        help="run the GUI thread under a real-time policy (Linux, root), so "
                             "other processes on a shared machine cannot queue it for a core; "
                             "the job threads stay under the normal policy")
    parser.add_argument("--dump-stalls", metavar="FILE",
                        help="write every thread's Python stack to FILE whenever the GUI "
                             "thread is 300 ms late (see stall_watch.py)")
    parser.add_argument("--max-steps", type=int, default=4000,
                        help="steps per run; fewer make runs pile up faster")
    parser.add_argument("--census-every", type=float, default=0.0, metavar="MINUTES",
                        help="print what each floating window holds (items, points, text "
                             "blocks) this often: what grows with the hour?")
    args = parser.parse_args()
    runs = tempfile.mkdtemp(prefix="soak-runs-")
    os.environ["WORKBENCH_RUNS_DIR"] = runs
    print(f"runs go to {runs}; load before: {os.getloadavg()}", flush=True)

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from benchmarks.stall_watch import StallWatch
    from workbench.app.backend import Backend
    from workbench.app.main import preload_heavy_modules
    from workbench.app.window import build_window
    from workbench.core.config.models import LstmConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.events import JobFailed, StepLogged
    from workbench.core.heap import heap_usage_mb
    from workbench.core.resources import default_corpus_path

    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(Path(runs) / "settings.ini"), QSettings.Format.IniFormat)
    window = build_window(settings, Backend())
    window.resize(1600, 1000)
    window.show()
    preload_heavy_modules()  # as the app does once the window shows
    controller = window.controller
    failures = []
    first_step: list[float] = []  # when the first training step was logged (perf_counter)

    def on_event(event) -> None:
        if isinstance(event, JobFailed):
            failures.append(event.message)
        elif isinstance(event, StepLogged) and not first_step:
            first_step.append(time.perf_counter())

    controller.job_event.connect(on_event)
    window.open_corpus(str(default_corpus_path()))
    deadline = time.monotonic() + 300
    while controller.tokens is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    while controller.jobs.busy:
        app.processEvents()
        time.sleep(0.01)
    controller.set_model_config(LstmConfig(hidden_size=256, embedding_size=64))
    panel = window.panels["training"]
    for name in (*INSPECTORS, "training"):  # each floats, so all five are drawn at once
        window.docks[name].setFloating(True)
        window.docks[name].resize(900, 600)
        window.show_panel(name)
    panel.controls.form.set_config(TrainingConfig(
        max_steps=args.max_steps, batch_size=16, seq_len=64, eval_every=50, eval_batches=4,
        log_every=10, sample_every=200, sample_length=100, warmup_steps=50, lr=3e-3,
        checkpoint_every=500, device="cpu"))

    # Let the five floating windows paint once, as they have by the time a user clicks Train:
    # their first paint together (~0.2 s) is opening panels, not training.
    settle_until = time.monotonic() + 3
    while time.monotonic() < settle_until:
        app.processEvents()
        time.sleep(0.01)
    ticks, rss, heaps, restarts = [time.perf_counter()], [], [], [0]
    pauses = watch_collections()
    if args.gui_first:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))  # 0: this (GUI) thread
    watch = StallWatch(keep_others_normal=args.gui_first, dump_to=args.dump_stalls)

    def tick() -> None:
        ticks.append(time.perf_counter())
        watch.tick()

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    watch.start()
    start = time.monotonic()
    end = start + args.minutes * 60
    warm_until = start + max(120.0, args.minutes * 6)
    next_sample = start
    next_census = start if args.census_every else float("inf")
    panel.controls.start.click()
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.002)
        now = time.monotonic()
        if now >= next_sample:
            rss.append((now - start, rss_mb()))
            heaps.append(heap_usage_mb())
            next_sample = now + 10
        if now >= next_census:
            print(f"census at {(now - start) / 60:.1f} min: "
                  f"{census(window.docks, (*INSPECTORS, 'training'))}", flush=True)
            next_census = now + 60 * args.census_every
        if not controller.jobs.busy and not failures:
            restarts[0] += 1
            panel.controls.start.click()  # the run finished: start the next one
        if failures:
            break
    timer.stop()
    watch.stop()
    panel.controls.stop.click()
    while controller.jobs.busy or controller.queries.busy:
        app.processEvents()
        time.sleep(0.01)
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:], strict=False))
    stall_ms = [1000 * g - 10 for g in gaps]
    warm = [mb for t, mb in rss if t >= warm_until - start]
    base, last = (warm[0], warm[-1]) if warm else (rss[0][1], rss[-1][1])
    probes = controller.backend.inspection
    print(f"GUI thread first (real-time policy): {args.gui_first}")
    print(f"minutes {args.minutes:g}; failures {failures or 'none'}; runs restarted "
          f"{restarts[0]}; load after: {os.getloadavg()}")
    print(f"RSS after warm-up {base:.0f} MB, at the end {last:.0f} MB, growth "
          f"{(last - base) / base:+.1%} (goal ≤ 10%); peak {max(mb for _, mb in rss):.0f} MB")
    print(f"GUI stalls: longest {stall_ms[-1]:.0f} ms (goal ≤ 100), p99.9 "
          f"{stall_ms[int(0.999 * (len(stall_ms) - 1))]:.1f} ms, median gap "
          f"{1000 * statistics.median(gaps):.1f} ms, over 100 ms: "
          f"{sum(s > 100 for s in stall_ms)} of {len(stall_ms)} ticks")
    if first_step:  # the start: torch's C library loads holding the GIL (benchmarks/README)
        started = [b - a for a, b in zip(ticks, ticks[1:], strict=False) if b > first_step[0]]
        before = [b - a for a, b in zip(ticks, ticks[1:], strict=False) if b <= first_step[0]]
        print(f"  from Train to the first step logged ({first_step[0] - ticks[0]:.1f} s): "
              f"longest {1000 * max(before, default=0.01) - 10:.0f} ms; from then on: longest "
              f"{1000 * max(started) - 10:.0f} ms, over 100 ms: "
              f"{sum(g > 0.11 for g in started)} of {len(started)} ticks")
    print(f"snapshots probed (model rebuilds): {getattr(probes, 'rebuilds', '?')}")
    # do stalls grow as runs pile up (each restart adds a run to the overlays)? per 10 minutes:
    periods: dict[int, list[int]] = {}
    for a, b in zip(ticks, ticks[1:], strict=False):
        counts = periods.setdefault(int((b - ticks[0]) // 600), [0, 0, 0])
        counts[0] += b - a > 0.06
        counts[1] += b - a > 0.11
        counts[2] = max(counts[2], round(1000 * (b - a)) - 10)
    print("stalls per 10 minutes (over 50 ms / over 100 ms / longest ms): " + ", ".join(
        f"{10 * k}-{10 * k + 10}: {n50}/{n100}/{top}" for k, (n50, n100, top)
        in sorted(periods.items())))
    every = max(1, len(rss) // 12)
    print("RSS samples (min, MB): " + ", ".join(f"{t / 60:.0f}:{mb:.0f}" for t, mb in rss[::every]))
    if heaps[0] is not None:  # glibc: is a growth blocks in use (a leak) or free ones kept?
        print("C heap in use / kept free / mmap'ed (MB): " + ", ".join(
            f"{t / 60:.0f}:{h['in_use']:.0f}/{h['free']:.0f}/{h['mapped']:.0f}"
            for (t, _), h in zip(rss[::every], heaps[::every], strict=True)))
    print(f"garbage collections of the oldest generation: {len(pauses)}, longest "
          f"{1000 * max(pauses, default=0):.0f} ms, over 50 ms: {sum(p > 0.05 for p in pauses)}")
    print(watch.report())
    controller.shutdown()


if __name__ == "__main__":
    main()
