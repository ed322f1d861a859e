"""Which code a GUI stall was spent in: a watcher thread samples the GUI thread's stack while
the GUI thread has not ticked for a while.

The soak benchmark's 10 ms timer says how long the window froze, not why. The watcher runs on
its own thread: whenever the GUI thread's last tick is older than `threshold_s`, it takes the
GUI thread's Python stack (`sys._current_frames`) every `every_s` until the tick comes, and files
the samples under that stall. A stall's samples name the frames it was spent in; the innermost
frame of workbench or pyqtgraph code is the place to look. Sampling is Python-level only: time
inside one C call (a paint, a matrix product) is charged to the Python line that made it, and a
stall where the GUI thread waits for the GIL shows the line where it waits.

Where Linux keeps scheduler statistics (/proc/self/task/TID/schedstat), each stall is also split
into the time the GUI thread ran, the time it was runnable but waited for a core (a loaded
machine), and the rest (blocked: waiting for the GIL or a lock). Only the first is the window's
own work.

The Python samples cannot say which thread keeps the GUI thread blocked: the watcher needs the
GIL to sample, so it never runs while another thread holds it. With `dump_to`, the GUI thread's
tick also keeps `faulthandler`'s watchdog armed; that watchdog is a C thread that needs no GIL,
and when the GUI thread goes `dump_after_s` without a tick it writes every thread's Python stack
to the file, the GIL holder's included. The watcher adds a line after each stall so the dumps
can be matched with stalls.
"""

from __future__ import annotations

import collections
import faulthandler
import os
import sys
import threading
import time
import traceback

OUR_CODE = ("workbench/", "pyqtgraph/")


class StallWatch:
    def __init__(self, threshold_s: float = 0.05, every_s: float = 0.005,
                 keep_others_normal: bool = False, dump_to: str | None = None,
                 dump_after_s: float = 0.3):
        """Make it on the GUI thread: that is the thread it watches. `keep_others_normal`:
        the GUI thread runs under a real-time policy (see `bench_soak --gui-first`), and every
        other thread of the process, which inherits that policy when it is made, is put back
        under the normal one within 20 ms of appearing."""
        self.gui = threading.get_ident()
        self.keep_others_normal = keep_others_normal
        self.gui_tid = threading.get_native_id()
        self.schedstat = f"/proc/self/task/{self.gui_tid}/schedstat"
        self.threshold_s, self.every_s = threshold_s, every_s
        self.last_tick = time.perf_counter()
        # (seconds, place -> samples, (ran, waited for a core, blocked) seconds)
        self.stalls: list[tuple[float, collections.Counter, tuple]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stall-watch", daemon=True)
        self.dump_after_s = dump_after_s
        self._dump = open(dump_to, "w") if dump_to else None  # noqa: SIM115 (open until stop)
        self._armed_at = 0.0
        self.t0 = time.perf_counter()

    def start(self) -> None:
        self._thread.start()

    def tick(self) -> None:
        """Called by the GUI thread's timer."""
        self.last_tick = now = time.perf_counter()
        if self._dump is not None and now - self._armed_at > 0.05:
            # Re-arming restarts the watchdog's countdown; every 50 ms is often enough for a
            # 300 ms limit and keeps the cost (a thread start) off most ticks.
            faulthandler.dump_traceback_later(self.dump_after_s, file=self._dump)
            self._armed_at = now

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(1.0)
        if self._dump is not None:
            faulthandler.cancel_dump_traceback_later()
            self._dump.close()

    def _watch(self) -> None:
        places: collections.Counter | None = None
        began, sched = 0.0, None
        before = self._sched()
        polls = 0
        while not self._stop.wait(self.every_s):
            polls += 1
            if self.keep_others_normal and polls % 4 == 0:
                self._normal_policy_for_others()
            last = self.last_tick
            late = time.perf_counter() - last
            now = self._sched()
            if late >= self.threshold_s:
                if places is None:
                    places, began, sched = collections.Counter(), last, before
                frame = sys._current_frames().get(self.gui)
                if frame is not None:
                    places[self.place(frame)] += 1
            elif places is not None:
                self.stalls.append((self.last_tick - began, places, self._split(sched, now)))
                if self._dump is not None and self.last_tick - began >= self.dump_after_s:
                    os.write(self._dump.fileno(), (
                        f"=== stall of {1000 * (self.last_tick - began):.0f} ms ended at "
                        f"{self.last_tick - self.t0:.1f} s{self._words(self.stalls[-1][2])}"
                        " ===\n").encode())
                places = None
            before = now

    def _normal_policy_for_others(self) -> None:
        for name in os.listdir("/proc/self/task"):
            tid = int(name)
            if tid in (self.gui_tid, threading.get_native_id()):
                continue
            try:
                if os.sched_getscheduler(tid) != os.SCHED_OTHER:
                    os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))
            except OSError:  # the thread ended meanwhile
                pass

    def _sched(self) -> tuple[float, float, float] | None:
        """(wall, ran, waited for a core) of the GUI thread, in seconds, or None."""
        try:
            with open(self.schedstat) as handle:
                ran, waited = handle.read().split()[:2]
        except (OSError, ValueError):
            return None
        return time.perf_counter(), int(ran) / 1e9, int(waited) / 1e9

    @staticmethod
    def _split(start, end) -> tuple:
        if start is None or end is None:
            return ()
        wall, ran, waited = (b - a for a, b in zip(start, end, strict=True))
        return ran, waited, max(0.0, wall - ran - waited)

    @staticmethod
    def place(frame) -> str:
        """The innermost frame in our code (workbench, pyqtgraph) and the one that called into
        it from the window, as "file:line function < file:line function"."""
        stack = traceback.extract_stack(frame)
        ours = [f for f in stack if any(part in f.filename for part in OUR_CODE)]
        chosen = (ours[-2:] if ours else stack[-2:])[::-1]
        return " < ".join(f"{short(f.filename)}:{f.lineno} {f.name}" for f in chosen)

    def report(self, longest: int = 5) -> str:
        """The longest stalls with where they were spent, and the places that took the most
        stalled time over the whole run."""
        if not self.stalls:
            return "stall watch: no stall over the threshold"
        lines = [f"stall watch: {len(self.stalls)} stalls over "
                 f"{1000 * self.threshold_s:.0f} ms; the longest:"]
        for seconds, places, split in sorted(self.stalls, key=lambda s: -s[0])[:longest]:
            top = ", ".join(f"{place} ×{n}" for place, n in places.most_common(2))
            lines.append(f"  {1000 * seconds:.0f} ms{self._words(split)}: {top}")
        total: collections.Counter = collections.Counter()
        for _, places, _ in self.stalls:
            total.update(places)
        splits = [split for *_, split in self.stalls if split]
        if splits:
            sums = [sum(part) for part in zip(*splits, strict=True)]
            lines.append("all stalls together" + self._words(sums))
        lines.append(f"places over all stalls (samples of {1000 * self.every_s:.0f} ms):")
        lines += [f"  {n:5d}  {place}" for place, n in total.most_common(8)]
        return "\n".join(lines)


    @staticmethod
    def _words(split) -> str:
        if not split:
            return ""
        ran, waited, blocked = (1000 * part for part in split)
        return (f" (GUI thread ran {ran:.0f} ms, waited for a core {waited:.0f} ms, "
                f"blocked {blocked:.0f} ms)")


def short(filename: str) -> str:
    for part in ("site-packages/", "/workbench/", "/benchmarks/"):
        if part in filename:
            return filename.split(part, 1)[1] if part == "site-packages/" else (
                part.strip("/") + "/" + filename.split(part, 1)[1])
    return filename.rsplit("/", 1)[-1]
