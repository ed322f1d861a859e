"""Keep what numba compiles for UMAP between sessions.

umap-learn and pynndescent mark only some of their numba functions `cache=True`; the others
(the layout's epoch loop, nearest-neighbour descent, clip, ...) were compiled again in every
new process: ~10 s of CPU before each session's first map, on top of the ~13 s the first map
after installing spends on the cached ones (measured with 500 vectors; packaging/README.md).
numba's dispatchers can be switched to caching after the fact, which keeps their machine code
where numba keeps the rest: beside the package when it is writable (a virtual environment),
else in the user's cache folder, or in NUMBA_CACHE_DIR when that is set.
"""

from __future__ import annotations

import sys
import warnings

PACKAGES = ("umap", "pynndescent")


def cache_compiled_code(packages: tuple[str, ...] = PACKAGES) -> int:
    """Turn on numba's on-disk cache for every module-level numba function of the already
    imported `packages` that lacks it; returns how many were switched."""
    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    switched = 0
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in packages:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher) and isinstance(value._cache, NullCache):
                with warnings.catch_warnings():
                    # a function numba cannot cache (one that closes over a dynamic value)
                    # stays as it was: numba says so with a warning, not an error
                    warnings.simplefilter("ignore")
                    value.enable_caching()
                switched += 1
    return switched
