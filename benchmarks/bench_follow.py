"""Following a run: the time from a checkpoint being written by another process to the window
showing it (the inspectors' snapshot replaced), and how far behind the curves are.

Run: `.venv/bin/python -m benchmarks.bench_follow [--saves 8] [--hidden 256,1024]` (offscreen).

A writer process (plain torch + the workbench's checkpoint writer, as a training run writes)
saves a char-LSTM checkpoint of the given size every 2 s and, right after each save returns
(the JSON renamed into place last), appends a metrics line and prints the wall-clock time. The
window follows the folder; the time is taken when `controller.snapshot_changed` fires on the
GUI thread, and when the metrics line reached the curves. Both runs of each size are done:
"watcher" (QFileSystemWatcher wakes the follow at once) and "poll only" (the watcher turned
off, as in a synced or network folder that sends no events: the 1 s poll finds it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WRITER = textwrap.dedent("""
    import sys, time, torch
    from workbench.core.events import StepLogged
    from workbench.core.training import checkpoints, runs
    folder, hidden, saves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    from pathlib import Path
    folder = Path(folder)
    model = torch.nn.ModuleDict({"embed": torch.nn.Embedding(80, 64),
                                 "rnn": torch.nn.LSTM(64, hidden, batch_first=True),
                                 "out": torch.nn.Linear(hidden, 80)})
    optimizer = torch.optim.AdamW(model.parameters())
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    optimizer.step()  # Adam's moments exist, as in a real checkpoint
    log = runs.RunLog(folder)
    print("ready", flush=True)
    time.sleep(3)
    for k in range(1, saves + 1):
        meta = {"step": k * 100, "model_config": {"arch": "lstm", "vocab_size": 80,
                "embedding_size": 64, "hidden_size": hidden, "num_layers": 1},
                "tokenizer": {"kind": "char"}, "training": {"max_steps": saves * 100}}
        checkpoints.save_checkpoint(folder / "checkpoints", "latest", model, optimizer, meta)
        saved = time.time()
        log.write(StepLogged(k * 100, 2.0, 1e-3, 0.5, False, k * 1000, 100.0, float(k)))
        print(f"saved {k * 100} {saved:.6f}", flush=True)
        time.sleep(2.0)
""")


def measure(hidden: int, saves: int, watcher: bool) -> dict:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.app.window import build_window
    from workbench.qt import run_follower

    app = QApplication.instance() or QApplication([])
    original = run_follower.RunFollower._watch
    if not watcher:
        run_follower.RunFollower._watch = lambda self: None
    tmp = Path(tempfile.mkdtemp())
    os.environ["WORKBENCH_RUNS_DIR"] = str(tmp / "runs")
    run = tmp / "run"
    run.mkdir()
    window = build_window(QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat))
    window.show()
    shown: dict[int, float] = {}
    curve: dict[int, float] = {}
    window.controller.snapshot_changed.connect(lambda s: shown.setdefault(s.step, time.time()))

    def on_follow(_key, event) -> None:
        for item in getattr(event, "events", ()):
            curve.setdefault(item.step, time.time())

    window.controller.follow_event.connect(on_follow)
    window.controller.follow_run(str(run))
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(run), str(hidden), str(saves)],
                              stdout=subprocess.PIPE, text=True)
    saved: dict[int, float] = {}

    def read_writer() -> None:  # the writer's "saved STEP TIME" lines, off the GUI thread
        for line in writer.stdout:
            if line.startswith("saved"):
                _, step, at = line.split()
                saved[int(step)] = float(at)

    reader = threading.Thread(target=read_writer, daemon=True)
    reader.start()
    deadline = time.monotonic() + 60 + saves * 10
    while time.monotonic() < deadline and len(shown) < saves:
        app.processEvents()
        time.sleep(0.002)
    writer.wait(30)
    reader.join(5)
    size = sum(p.stat().st_size for p in (run / "checkpoints").glob("latest.*"))
    window.close()
    run_follower.RunFollower._watch = original
    # the first save of a run is left out of the median (the follow may still be starting)
    delays = [shown[s] - saved[s] for s in sorted(saved) if s in shown]
    lags = [curve[s] - saved[s] for s in sorted(saved) if s in curve]
    return {"hidden": hidden, "watcher": watcher, "mb": size / 1e6, "delays": delays,
            "lags": lags, "missed": len(saved) - len(delays)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--saves", type=int, default=8)
    parser.add_argument("--hidden", default="256,1024")
    args = parser.parse_args()
    print(f"uptime: {os.popen('uptime').read().strip()}  cores: {os.cpu_count()}")
    for hidden in (int(h) for h in args.hidden.split(",")):
        for watcher in (True, False):
            r = measure(hidden, args.saves, watcher)
            steady = r["delays"][1:] or r["delays"]
            print(f"hidden {hidden:5d} ({r['mb']:.1f} MB checkpoint), "
                  f"{'watcher  ' if watcher else 'poll only'}: snapshot shown after median "
                  f"{statistics.median(steady) * 1000:.0f} ms (min {min(steady) * 1000:.0f}, "
                  f"max {max(steady) * 1000:.0f}; first: {r['delays'][0] * 1000:.0f}); "
                  f"metrics line on the curves after median "
                  f"{statistics.median(r['lags']) * 1000:.0f} ms; missed {r['missed']}")


if __name__ == "__main__":
    main()
