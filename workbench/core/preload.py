"""When the heavy modules are imported ahead of use (the window does it on a daemon thread once
it shows: `workbench.app.main.preload_heavy_modules`), the scipy parts come first and job
threads wait for them.

scipy's array-API helpers look up `sys.modules["torch"]` and read `torch.Tensor` while scipy
imports. If a job thread is halfway through importing torch at that moment, the lookup finds
the half-made module and scipy's import fails with "partially initialized module 'torch' has
no attribute 'Tensor'" (seen in the soak benchmark: Train clicked while the preload ran). So
`drive` waits for the scipy part before a job runs; it waits at most once, under a second.

Importing torch holds the GIL for 0.2-0.4 s while its C++ libraries load (the dynamic linker
maps ~500 MB and runs their static initialisers, inside the import of `torch._C`), so the
window froze that long at its first training start. `load_torch_libraries` loads the same
libraries first through the C library's `dlopen`, called by ctypes, which releases the GIL for
the call; the import then finds them loaded. A 5 ms timer beside the loading thread: longest
gap 201-391 ms without, 62-70 ms with it (26 Nov, `import torch` on a daemon thread).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
import threading
from pathlib import Path

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


# Load order: each library's dependencies before it. libtorch_global_deps is loaded global, as
# torch's own __init__ does; the others stay local (the import's dlopen of torch._C reuses
# them by name). CUDA builds have the *_cuda libraries; CPU builds skip what is absent.
_TORCH_LIBRARIES = ("libtorch_global_deps", "libc10", "libc10_cuda", "libtorch_cpu",
                    "libtorch_cuda", "libtorch", "libtorch_python")


def load_torch_libraries() -> int:
    """Load torch's C++ libraries without holding the GIL, before `import torch` (Linux and
    macOS; elsewhere, or when torch is not found, nothing). Returns how many were loaded; a
    library that fails to load stops it, and the import then loads the rest as usual."""
    if "torch" in sys.modules or not sys.platform.startswith(("linux", "darwin")):
        return 0
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return 0
    lib_dir = Path(next(iter(spec.submodule_search_locations))) / "lib"
    suffix = ".dylib" if sys.platform == "darwin" else ".so"
    libc = ctypes.CDLL(None)
    libc.dlopen.restype = ctypes.c_void_p
    libc.dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    loaded = 0
    for name in _TORCH_LIBRARIES:
        path = lib_dir / f"{name}{suffix}"
        if not path.exists():
            continue
        scope = os.RTLD_GLOBAL if name == "libtorch_global_deps" else os.RTLD_LOCAL
        if not libc.dlopen(os.fsencode(path), os.RTLD_NOW | scope):
            break
        loaded += 1
    return loaded
