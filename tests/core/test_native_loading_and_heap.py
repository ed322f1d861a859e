"""The window's preload loads torch's C++ libraries without holding the GIL (the window froze
0.2-0.4 s at the first training start while `import torch` held it), and the job thread gives
the C heap's free pages back to the system when a job ends (the soak saw RSS grow in steps)."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap

import pytest

from workbench.core import heap

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc, /proc")

LOAD_BESIDE_A_COUNTER = textwrap.dedent("""
    import sys, threading, time
    from workbench.core import preload
    gaps, stop = [0.0], threading.Event()
    def count():  # the longest time this thread went without the GIL
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            gaps[0], last = max(gaps[0], now - last), now
    threading.Thread(target=count, daemon=True).start()
    time.sleep(0.05)
    gaps[0] = 0.0
    start = time.perf_counter()
    loaded = preload.load_torch_libraries()
    took = time.perf_counter() - start
    stop.set()
    maps = open("/proc/self/maps").read()
    assert "torch" not in sys.modules
    import torch
    print(loaded, gaps[0] / took, "libtorch_cpu" in maps, float(torch.ones(3).sum()))
""")


@linux_only
@pytest.mark.slow
def test_torch_libraries_load_before_the_import_while_other_threads_run():
    result = subprocess.run([sys.executable, "-c", LOAD_BESIDE_A_COUNTER], capture_output=True,
                            text=True, timeout=300, check=True)
    loaded, longest_wait, mapped, total = result.stdout.split()
    assert int(loaded) >= 4 and mapped == "True"  # global deps, c10, torch_cpu, torch, python
    # Loading libtorch_cpu alone is most of the ~0.2 s. Holding the GIL, it would keep the
    # other thread waiting that long; let go, the other thread waits a switch interval or so.
    assert float(longest_wait) < 0.4
    assert float(total) == 3.0  # torch imports and works on the preloaded libraries


def test_nothing_is_loaded_once_torch_is_imported():
    import torch  # noqa: F401

    from workbench.core import preload

    assert preload.load_torch_libraries() == 0


def resident_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 2**20


@linux_only
def test_trim_returns_freed_heap_pages_that_a_live_block_above_them_pins():
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    # 64 KB blocks stay below malloc's mmap threshold, so they come from the heap
    blocks = [libc.malloc(64 * 1024) for _ in range(1600)]
    for block in blocks:
        ctypes.memset(block, 1, 64 * 1024)
    for block in blocks[:-1]:  # the last one stays: the heap cannot shrink from its top
        libc.free(block)
    held = resident_mb()
    usage = heap.heap_usage_mb()
    assert usage is not None and usage["free"] > 90
    assert heap.trim_free_memory(force=True)
    assert held - resident_mb() > 80  # ~100 MB freed but still resident until the trim
    libc.free(blocks[-1])


@linux_only
def test_trims_are_spaced_unless_forced(monkeypatch):
    monkeypatch.setattr(heap, "_last_trim", [float("-inf")])
    assert heap.trim_free_memory()
    assert not heap.trim_free_memory()  # within TRIM_EVERY_S of the last
    assert heap.trim_free_memory(force=True)
