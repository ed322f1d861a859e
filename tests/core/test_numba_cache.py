"""UMAP's numba functions that their packages do not mark cache=True are cached on disk too,
so a later session's first map does not compile them again (umap's layout loop and
pynndescent's neighbour descent were compiled in every process: ~10 s of CPU per session)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from workbench.core.embeddings import numba_cache

numba = pytest.importorskip("numba")
from numba.core.caching import FunctionCache  # noqa: E402


@pytest.mark.slow
def test_uncached_numba_functions_are_kept_for_the_next_session(tmp_path, monkeypatch):
    (tmp_path / "fakeumap.py").write_text(textwrap.dedent("""
        import numba

        @numba.njit
        def clip(x):
            return min(max(x, -4.0), 4.0)

        @numba.njit(cache=True)
        def already_cached(x):
            return x + 1.0
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fakeumap", raising=False)
    import fakeumap

    assert numba_cache.cache_compiled_code(("fakeumap",)) == 1  # clip; the other has its cache
    assert fakeumap.clip(9.0) == 4.0
    # a new process would build a fresh dispatcher: it finds clip's machine code on disk
    signature = fakeumap.clip.signatures[0]
    fresh = FunctionCache(fakeumap.clip.py_func)
    assert fresh.load_overload(signature, fakeumap.clip.targetctx) is not None
    assert list(tmp_path.glob("__pycache__/fakeumap.clip-*.nbi"))

