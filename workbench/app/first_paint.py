"""Start-up in order: the window paints first, then the work that can wait for it.

`after_first_paint(window, callback)` runs `callback` once the main window has painted and the
event loop has come back idle (a zero timer queued by the first paint). The entry point opens
the default corpus and preloads torch there: started before the paint, both competed with it
for the interpreter lock and the cores and delayed the first frame.

With `WORKBENCH_READY_FILE=PATH` in the environment, `report_ready` appends one line to PATH at
that moment: `ready <unix time> <CPU seconds the process had used> <heavy modules already
imported when the window was shown, comma-separated, or ->`. `benchmarks/bench_startup.py` and
`packaging/check_linux.py` launch the real entry point with it and time the launch from
outside, which includes what an import-only timing misses (the interpreter or the frozen
bootloader starting, shared libraries loading, the first paint). CPU time shows how much of a
slow start was the machine's load rather than the app's work.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

READY_FILE_ENV = "WORKBENCH_READY_FILE"
# What must load only after the window shows (DESIGN.md section 5; issues 16 and 18).
HEAVY_MODULES = ("torch", "gensim", "numba", "umap", "openTSNE", "sklearn", "scipy.signal")


FALLBACK_MS = 3000  # a window that never paints (started minimised) still gets its work


class _FirstPaint(QObject):
    def __init__(self, window, callback: Callable[[], None]) -> None:
        super().__init__(window)
        self.window = window
        self.callback = callback
        self.done = False
        window.installEventFilter(self)
        QTimer.singleShot(FALLBACK_MS, self, self._run)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint and not self.done:
            self.window.removeEventFilter(self)
            QTimer.singleShot(0, self, self._run)  # after what the paint queued
        return False

    def _run(self) -> None:
        if not self.done:
            self.done = True
            self.window.removeEventFilter(self)
            self.callback()


def after_first_paint(window, callback: Callable[[], None]) -> None:
    """Call `callback` once on the GUI thread when `window` has painted, or after
    FALLBACK_MS if it has not (call before `show`)."""
    _FirstPaint(window, callback)


def report_ready(window) -> None:
    """Write the ready line when the window is usable, if `WORKBENCH_READY_FILE` asks for it
    (call before `show`, and before other `after_first_paint` work so the line comes first)."""
    path = os.environ.get(READY_FILE_ENV)
    if not path:
        return
    before_show = ",".join(name for name in HEAVY_MODULES if name in sys.modules) or "-"

    def write() -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"ready {time.time():.6f} {time.process_time():.6f} {before_show}\n")

    after_first_paint(window, write)
