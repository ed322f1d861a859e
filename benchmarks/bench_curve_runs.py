"""Does drawing many runs' training curves slow a live update? One run shown against all.

    .venv/bin/python -m benchmarks.bench_curve_runs RUNS_FOLDER [--updates 30]

RUNS_FOLDER holds run folders (a soak's, for example: bench_soak prints where its runs go). The
real window lists them, ticks one and then all of them in turn (twice), and times a live
update as the window makes it: the first run is marked changed, the curves redraw and the view
repaints. Prints the median milliseconds of each (offscreen).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", help="a folder of run folders")
    parser.add_argument("--updates", type=int, default=30)
    args = parser.parse_args()
    os.environ["WORKBENCH_RUNS_DIR"] = str(Path(args.runs).resolve())

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.app.backend import Backend
    from workbench.app.window import build_window

    app = QApplication.instance() or QApplication([])
    scratch = tempfile.mkdtemp(prefix="curve-runs-")
    window = build_window(QSettings(f"{scratch}/settings.ini", QSettings.Format.IniFormat),
                          Backend())
    window.resize(1600, 1000)
    window.show()
    window.docks["training"].setFloating(True)
    window.docks["training"].resize(900, 600)
    window.show_panel("training")
    panel = window.panels["training"]

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end or window.controller.queries.busy:
            app.processEvents()
            time.sleep(0.002)

    pump(2)
    keys = list(panel.series)
    if not keys:
        raise SystemExit(f"no run folders in {args.runs}")

    def show(count: int) -> None:
        for index, key in enumerate(keys):
            panel.run_list.visibility_changed.emit(key, index < count)
        pump(3)  # ticked runs are read by queries

    def update_ms() -> float:
        times = []
        for _ in range(args.updates):
            panel.series[keys[0]].version += 1  # as a live run's new steps mark it changed
            start = time.perf_counter()
            panel.curves.redraw()
            panel.curves.repaint()
            app.processEvents()
            times.append(1000 * (time.perf_counter() - start))
        return statistics.median(times)

    print(f"{len(keys)} runs in {args.runs}; load {os.getloadavg()[0]:.1f}")
    for count in (1, len(keys), 1, len(keys)):
        show(count)
        print(f"{count:3d} runs shown: a live update's redraw and paint, median "
              f"{update_ms():.1f} ms over {args.updates}")
    window.controller.shutdown()


if __name__ == "__main__":
    main()
