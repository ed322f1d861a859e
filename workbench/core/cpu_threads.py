"""How many torch threads a job may use, and the window's share of the cores (no torch here).

In the window torch gets every core but one (at least one). Measured on the shared 2-core
machine (bench_training and a transformer step timed alone): with 1 thread the window trained a
char-LSTM at a steady 47-49k tokens/s (0.97 of a plain loop) with GUI gaps p99 6 ms / max 13 ms;
with 2 threads while other processes used the CPU, OpenMP's spinning threads waited on each
other: a plain LSTM loop swung between 14k and 87k tokens/s and a transformer step took 0.7-1.8 s
instead of 48 ms. The spare core keeps the GUI thread and the rest of the machine alive; on a
many-core machine it costs little. Headless (the `workbench train` CLI) "auto" leaves a core free
too (issue 35): there is no GUI thread, but a classroom or lab machine is shared, and two torch
threads on a 2-core machine that anything else also uses spin against it (0.47x of one thread,
benchmarks/README.md "Two torch threads"; on 26 Nov at load 29-35 a 10-step LSTM run did not
finish in 300 s with either count). A machine that is the run's own passes --threads N.

The same holds for the window's other torch work (the architecture summary, inspector probes,
generation): a model summary on both cores while a corpus tokenized froze the window for
0.3-0.5 s, so `reserve_gui_core` applies the rule to the whole process.
"""

from __future__ import annotations

import os
import sys

RESERVED_CORES = 1


def choose_threads(requested: int, gui: bool = True) -> int:
    """torch threads for a run: `requested` if set, else all cores but one (at least one),
    with a window (`gui`) or without: the headless CLI shares the machine too."""
    if requested > 0:
        return requested
    return max(1, (os.cpu_count() or 1) - RESERVED_CORES)


def split_threads(cores: int | None, processes: int) -> int:
    """torch threads per process when several train on one machine (torchrun ranks) and the
    recipe says "auto": the cores shared out, so the ranks do not fight over them."""
    return max(1, (cores or os.cpu_count() or 1) // max(processes, 1))


def reserve_gui_core() -> int:
    """Limit torch's intra-op threads for a process with a window; returns the count.

    Before torch is imported this only sets OMP_NUM_THREADS (unless the user set it), so the
    window still starts without loading torch; a training run sets its own count later.
    """
    threads = choose_threads(0, gui=True)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)
    else:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    return threads
