"""Corpus loading: does a 100 MB corpus keep the window responsive, and how fast is it?

Run: `.venv/bin/python -m benchmarks.bench_corpus [--mb 100] [--repeats 3]` (offscreen).

Three runs per repeat, interleaved so machine noise hits them alike, each watched by a 10 ms
QTimer on the GUI thread (a "stall" is the longest gap between two ticks):
- idle: the event loop alone for 2 s (the machine's own jitter, the floor);
- naive: a worker thread doing `read_text()` then `Counter(text.split())` on the same file,
  the obvious implementation, whose long C calls hold the interpreter lock;
- workbench: `window.open_corpus(path)` in the real window: read, decode, statistics, then
  the automatic character-level tokenizing and split, until the tokens are ready.
A second table times loading the shipped 5 MB Shakespeare (with statistics) against reading
and decoding the same files (the floor for any loader).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class StallProbe:
    def __init__(self, app):
        from PySide6.QtCore import QTimer

        self.app, self.ticks = app, []
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def run_until(self, done, timeout_s: float = 600) -> dict:
        self.ticks = [time.perf_counter()]
        self.timer.start()
        start = time.perf_counter()
        while not done() and time.perf_counter() - start < timeout_s:
            self.app.processEvents()
            time.sleep(0.001)
        self.timer.stop()
        gaps = sorted(b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False)) or [0.0]
        return {"seconds": time.perf_counter() - start, "max_ms": 1000 * gaps[-1],
                "p99_ms": 1000 * gaps[int(0.99 * (len(gaps) - 1))]}


def make_corpus(folder: Path, megabytes: int) -> Path:
    from workbench.core.resources import full_corpus_path

    text = "\n".join(p.read_text() for p in sorted(full_corpus_path().glob("*.txt")))
    target = megabytes * 1_000_000
    path = folder / f"shakespeare-{megabytes}mb.txt"
    with path.open("w") as out:
        written = 0
        while written < target:
            piece = text[: target - written]
            out.write(piece)
            written += len(piece)
    return path


def run_idle(probe) -> dict:
    end = time.perf_counter() + 2.0
    return probe.run_until(lambda: time.perf_counter() > end)


def run_naive(probe, path: Path) -> dict:
    def work():
        text = path.read_text()
        Counter(text.split())

    thread = threading.Thread(target=work)
    thread.start()
    result = probe.run_until(lambda: not thread.is_alive())
    thread.join()
    return result


def run_workbench(probe, window, path: Path) -> dict:
    controller = window.controller
    controller.tokens = None
    window.open_corpus(str(path))
    result = probe.run_until(
        lambda: controller.tokens is not None and not controller.jobs.busy)
    assert controller.corpus is not None and controller.corpus.path == str(path), \
        controller.last_error
    return result


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def bench_responsiveness(megabytes: int, repeats: int) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.app.window import build_window

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        path = make_corpus(Path(tmp), megabytes)
        window = build_window(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.show()
        probe = StallProbe(app)
        results: dict[str, list[dict]] = {"idle": [], "naive": [], "workbench": []}
        for _ in range(repeats):
            results["idle"].append(run_idle(probe))
            results["naive"].append(run_naive(probe, path))
            results["workbench"].append(run_workbench(probe, window, path))
            window.controller.set_corpus(None)  # let the big corpus go before the next run
            window.controller.tokens = None
        window.close()
    mb = path.stat().st_size / 1e6 if path.exists() else megabytes
    print(f"\n{mb:.0f} MB corpus, {repeats} repeats (medians), GUI-thread stalls:")
    print("| run | max stall (ms) | p99 gap (ms) | time (s) |")
    print("|---|---|---|---|")
    for name, rows in results.items():
        print(f"| {name} | {median(rows, 'max_ms'):.0f} | {median(rows, 'p99_ms'):.0f} | "
              f"{median(rows, 'seconds'):.1f} |")
    for name, rows in results.items():
        print(f"{name} max stalls per repeat (ms): "
              + ", ".join(f"{r['max_ms']:.0f}" for r in rows))
    ratio = median(results["naive"], "max_ms") / max(1e-9, median(results["workbench"],
                                                                  "max_ms"))
    print(f"naive max stall / workbench max stall = {ratio:.1f}x")


def bench_shipped(repeats: int) -> None:
    from workbench.core.corpus.loading import load_corpus
    from workbench.core.resources import full_corpus_path

    files = sorted(full_corpus_path().glob("*.txt"))
    plain, ours = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for f in files:
            f.read_bytes().decode("utf-8")
        plain.append(time.perf_counter() - start)
        start = time.perf_counter()
        corpus = load_corpus(full_corpus_path())
        ours.append(time.perf_counter() - start)
    p, o = statistics.median(plain), statistics.median(ours)
    print(f"\nShipped Shakespeare, {len(files)} files, {corpus.stats.characters / 1e6:.1f} M "
          f"characters, {repeats} repeats (medians):")
    print("| run | time (s) |\n|---|---|")
    print(f"| read + decode only | {p:.3f} |\n| load_corpus (+ statistics) | {o:.3f} |")
    print(f"load_corpus / read+decode = {o / p:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    bench_shipped(max(3, args.repeats))
    bench_responsiveness(args.mb, args.repeats)


if __name__ == "__main__":
    main()
