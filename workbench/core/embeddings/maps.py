"""2-D maps of word vectors: PCA (numpy), t-SNE (openTSNE) and UMAP (umap-learn), as jobs.

The seeds show such maps without naming a method [NOT IN SEEDS]: PCA keeps global directions
(gender or plural offsets stay parallel), t-SNE and UMAP keep local neighbourhoods.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from workbench.core.events import Event, JobFinished, Progress
from workbench.core.jobs import JobControl, JobSpec, UserFacingError

METHODS = ("pca", "tsne", "umap")
UMAP_LEFT_OUT = ("UMAP is not part of this installer: its compiler (numba with llvmlite) would "
                 "add about 170 MB. PCA and t-SNE are here; a source install (make run) has UMAP.")

TSNE_MISSING = ("t-SNE needs openTSNE, which has no package for this system (Linux on ARM "
                "installs without it). PCA and UMAP are here.")


def unavailable_methods() -> dict[str, str]:
    """Map methods whose library is not installed, each with the reason to show. The classroom
    installers leave UMAP out (packaging/workbench.spec); finding that out imports nothing."""
    import importlib.util

    missing = {} if importlib.util.find_spec("umap") else {"umap": UMAP_LEFT_OUT}
    if importlib.util.find_spec("openTSNE") is None:
        missing["tsne"] = TSNE_MISSING
    return missing


def pca_2d(vectors: np.ndarray) -> np.ndarray:
    """Project onto the two leading principal components.

    The d × d covariance is cheap to decompose even for 100k words, and forming it from the
    uncentred Gram matrix XᵀX − n·μμᵀ avoids copying the whole matrix to centre it (the copy
    cost as much as the product). When the mean dominates the spread that subtraction would
    lose float32 digits, so those matrices are centred explicitly.
    """
    n = len(vectors)
    mean = vectors.mean(axis=0, dtype=np.float64)
    spread = float(np.mean(np.var(vectors[: min(n, 5000)], axis=0, dtype=np.float64)))
    if float(mean @ mean) / vectors.shape[1] > 10.0 * max(spread, 1e-30):
        centred = vectors - mean.astype(vectors.dtype)
        covariance = (centred.T @ centred).astype(np.float64) / max(n - 1, 1)
    else:
        gram = (vectors.T @ vectors).astype(np.float64)
        covariance = (gram - n * np.outer(mean, mean)) / max(n - 1, 1)
    values, axes = np.linalg.eigh(covariance)
    leading = axes[:, np.argsort(values)[::-1][:2]]
    coords = vectors @ leading.astype(vectors.dtype) - (mean @ leading).astype(vectors.dtype)
    return coords.astype(np.float32)


def map_job(vectors, method: str, seed: int = 1) -> JobSpec:
    if method not in METHODS:
        raise UserFacingError(f"Unknown map method '{method}'. Choose one of {METHODS}.")
    if method in unavailable_methods():
        raise UserFacingError(unavailable_methods()[method])
    if len(vectors) < 3:
        raise UserFacingError("A map needs at least three words.")
    titles = {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}
    return JobSpec(f"{titles[method]} map of {len(vectors)} words",
                   lambda control: _map(control, vectors.vectors, method, seed))


def _map(control: JobControl, matrix: np.ndarray, method: str, seed: int) -> Iterator[Event]:
    yield Progress(0, 1, "starting")
    if method == "pca":
        coords = pca_2d(matrix)
    elif method == "tsne":
        coords = yield from _tsne(control, matrix, seed)
    else:
        coords = yield from _umap(control, matrix, seed)
    yield Progress(1, 1, "done")
    yield JobFinished(result=np.asarray(coords, dtype=np.float32))


def _umap(control: JobControl, matrix: np.ndarray, seed: int):
    """UMAP in its two stages. The first use compiles umap's and pynndescent's numba code
    (~25 s of CPU here, minutes on a loaded core); numba keeps what it compiled on disk
    (numba_cache: all of it, not only what the packages mark cache=True), so later sessions'
    maps skip it. numba reports nothing while it compiles, so each stage says what it waits for."""
    import sys

    from workbench.core.embeddings.numba_cache import cache_compiled_code

    if "umap" not in sys.modules:
        yield Progress(0.05, 1, "UMAP: loading and compiling numba code (the first map after "
                                "installing takes longest; cached afterwards)")
    import umap

    cache_compiled_code()

    control.check()
    yield Progress(0.3, 1, "UMAP: neighbour graph and layout (no progress inside)")
    reducer = umap.UMAP(n_components=2, random_state=seed, n_neighbors=15,
                        n_jobs=1, low_memory=True)
    return reducer.fit_transform(matrix).astype(np.float32)


def _tsne(control: JobControl, matrix: np.ndarray, seed: int):
    """openTSNE in stages so the job reports progress and can stop between them."""
    from openTSNE import TSNEEmbedding, affinity, initialization, nearest_neighbors

    yield Progress(0.05, 1, "t-SNE: nearest neighbours and affinities")
    perplexity = float(min(30, max(2, (len(matrix) - 1) // 3)))
    # The neighbour index is built here and handed over: asked for one by name, openTSNE first
    # imports pynndescent if it is installed (umap-learn brings it), whose numba functions
    # compile for minutes before the first map although t-SNE never uses them (CI, stop 39).
    index_kind = nearest_neighbors.Annoy if len(matrix) > 1000 else nearest_neighbors.Sklearn
    index = index_kind(matrix, k=min(len(matrix) - 1, int(3 * perplexity)), n_jobs=1,
                       random_state=seed)
    affinities = affinity.PerplexityBasedNN(perplexity=perplexity, knn_index=index, n_jobs=1,
                                            random_state=seed)
    control.check()
    init = initialization.pca(matrix, random_state=seed)
    embedding = TSNEEmbedding(init, affinities, n_jobs=1, random_state=seed)
    stages = [("early exaggeration", 250, 12.0), ("optimisation", 500, 1.0)]
    done = 0
    for index, (name, iterations, exaggeration) in enumerate(stages):
        for _ in range(0, iterations, 50):
            embedding = embedding.optimize(n_iter=50, exaggeration=exaggeration, momentum=0.5
                                           if index == 0 else 0.8)
            done += 50
            control.check()
            yield Progress(0.1 + 0.9 * done / 750, 1, f"t-SNE {name}: {done} of 750 iterations")
    return np.asarray(embedding)
