"""When the heavy modules are imported ahead of use (the window does it on a daemon thread once
it shows: `workbench.app.main.preload_heavy_modules`), the scipy parts come first and job
threads wait for them.

scipy's array-API helpers look up `sys.modules["torch"]` and read `torch.Tensor` while scipy
imports. If a job thread is halfway through importing torch at that moment, the lookup finds
the half-made module and scipy's import fails with "partially initialized module 'torch' has
no attribute 'Tensor'" (seen in the soak benchmark: Train clicked while the preload ran). So
`drive` waits for the scipy part before a job runs; it waits at most once, under a second.
"""

from __future__ import annotations

import threading

_started = threading.Event()
_scipy_done = threading.Event()
SCIPY_WAIT_S = 30.0  # a slow disk at a cold start; the job runs anyway after it


def begin() -> bool:
    """The preload starts: True the first time, False when it already ran."""
    if _started.is_set():
        return False
    _started.set()
    return True


def scipy_imported() -> None:
    """The preload is past scipy (imported, or failed to)."""
    _scipy_done.set()


def wait_for_scipy() -> None:
    """Returns at once unless a preload is importing scipy right now."""
    if _started.is_set():
        _scipy_done.wait(SCIPY_WAIT_S)
