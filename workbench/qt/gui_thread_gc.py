"""Python's cycle collector, run on the GUI thread only, and kept cheap.

Why: CPython runs a cycle collection on whichever thread allocates when one is due. If that
is a job thread and the garbage holds Qt objects (a closed dialog, a menu, a window's signal
connections), their C++ destructors run on that thread and can deadlock against the GUI
thread (seen in CI: a window left by one test collected inside the next test's model summary,
the GUI thread in QObject deletion waiting on a mutex, the job thread waiting for the GIL).
So automatic collection is turned off and a GUI-thread timer collects the generations that
are due, as pyqtgraph's GarbageCollector does.

Cheap: a full collection walks every tracked object. After start-up (torch, pyqtgraph, the
panels) there are ~390k of them and a full pass holds the GIL ~200 ms, a visible freeze.
Objects created by imports live as long as the process, so after each burst of imports
(torch at start-up, gensim when embeddings are first trained) they are moved to the permanent
generation with gc.freeze() and later collections skip them. The young generations are
collected first, so import-time garbage is not frozen with them, unless they are large: torch
imported on the preload thread leaves ~220k young objects (automatic collection is off), and
collecting them held the GIL 50-70 ms on each of the five timer ticks its import spanned
(the soak's profile of the start, 26 Nov). Then they are frozen as they are: freezing costs
nothing, and the garbage it keeps is small (6,648 objects after importing torch).
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 1000
# Freeze again once this many modules have been imported since the last freeze: imports are
# where long-lived objects come from in bulk (importing torch adds ~1,050 modules).
IMPORT_BURST_MODULES = 100
# Up to this many young objects, collect them before freezing (a few milliseconds).
YOUNG_COLLECT_LIMIT = 20_000


class GuiThreadCollector(QObject):
    """Owns cycle collection while it runs; `stop()` hands it back to the interpreter."""

    _running = 0  # collectors alive: automatic collection returns when the last one stops

    def __init__(self, parent: QObject | None = None,
                 interval_ms: int = CHECK_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._modules_at_freeze = 0
        # Shared with the `destroyed` handler, which must not hold the collector itself: a
        # window freed without being closed (a script, a test) still hands collection back.
        self._state = {"stopped": False}
        state = self._state
        self.destroyed.connect(lambda: GuiThreadCollector._release(state))
        GuiThreadCollector._running += 1
        gc.disable()
        self._freeze_if_imports_grew()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start(interval_ms)

    def collect_due(self) -> int:
        """Collect the oldest generation whose count passed its threshold (with the younger
        ones, as the interpreter would); returns the generation collected, or -1."""
        self._freeze_if_imports_grew()
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if counts[g] <= thresholds[g]:
                break
            generation = g
        if generation >= 0:
            gc.collect(generation)
        return generation

    def stop(self) -> None:
        self.timer.stop()
        GuiThreadCollector._release(self._state)

    @staticmethod
    def _release(state: dict) -> None:
        if state["stopped"]:
            return
        state["stopped"] = True
        GuiThreadCollector._running -= 1
        if GuiThreadCollector._running == 0:
            gc.unfreeze()  # what was frozen may be garbage now (this window, its panels)
            gc.enable()

    def _freeze_if_imports_grew(self) -> None:
        modules = len(sys.modules)
        if modules - self._modules_at_freeze < IMPORT_BURST_MODULES:
            return
        young = gc.get_count()
        if young[0] + young[1] * gc.get_threshold()[0] <= YOUNG_COLLECT_LIMIT:
            gc.collect(1)  # young garbage out first; it skips the oldest generation
        gc.freeze()
        self._modules_at_freeze = modules
