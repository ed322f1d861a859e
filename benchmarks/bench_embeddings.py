"""Embeddings lab measurements (issue 5), each against a reference in the same run.

1. Training throughput: words/s of the app's job (one epoch per gensim call) against gensim's
   Word2Vec called directly with the same corpus and settings, alternated, median of repeats.
2. Nearest-neighbour query at 100k words × 300 dimensions (WordVectors.neighbours), beside
   one read of the same matrix (its memory-bandwidth floor), alternated.
3. PCA of 100k × 300 (maps.pca_2d), median of repeats.
4. Map redraw: the map of 100k points panned 30 times, time per repaint.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.bench_embeddings
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def training_ratio(repeats: int, epochs: int) -> tuple[float, float]:
    from gensim.models import Word2Vec

    from workbench.core.config.embeddings import EmbeddingConfig
    from workbench.core.corpus.loading import load_corpus
    from workbench.core.embeddings.training import (
        build_model,
        sentences_of,
        train_embeddings_job,
    )
    from workbench.core.jobs import JobControl, drive
    from workbench.core.resources import full_corpus_path

    text = load_corpus(full_corpus_path()).text
    config = EmbeddingConfig(epochs=epochs, workers=2, evaluate=False)
    sentences = sentences_of(text, True)
    words = sum(len(s) for s in sentences) * epochs
    app, direct = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        list(drive(train_embeddings_job(text, config), JobControl()))
        app.append(words / (time.perf_counter() - start))
        start = time.perf_counter()
        sentences = sentences_of(text, True)  # gensim needs token lists too
        reference: Word2Vec = build_model(config)  # same hyper-parameters, one train() call
        reference.build_vocab(sentences)
        reference.train(sentences, total_examples=reference.corpus_count, epochs=epochs,
                        compute_loss=True)
        direct.append(words / (time.perf_counter() - start))
    return statistics.median(app), statistics.median(direct)


def query_and_pca(n: int, d: int, repeats: int) -> dict[str, float]:
    """Neighbour query and PCA at n × d, each beside a reference that bounds it from below:
    one pass reading the whole unit matrix (a query is one matrix-vector product, so memory
    bandwidth is its floor), alternated with the queries."""
    from workbench.core.embeddings.maps import pca_2d
    from workbench.core.embeddings.vectors import WordVectors

    rng = np.random.default_rng(0)
    vectors = WordVectors([f"w{i}" for i in range(n)], rng.normal(size=(n, d)).astype("f4"))
    unit = vectors.unit  # normalised once, as when vectors arrive in the panel
    queries, reads = [], []
    for i in range(60):
        start = time.perf_counter()
        vectors.neighbours(f"w{i * 7}", 10)
        queries.append(time.perf_counter() - start)
        start = time.perf_counter()
        unit.max()  # one contiguous pass, the fastest full read numpy makes
        reads.append(time.perf_counter() - start)
    pcas = []
    for _ in range(repeats):
        start = time.perf_counter()
        pca_2d(vectors.vectors)
        pcas.append(time.perf_counter() - start)
    return {"query_ms": 1000 * statistics.median(queries),
            "query_p95_ms": 1000 * sorted(queries)[int(0.95 * len(queries))],
            "read_ms": 1000 * statistics.median(reads), "pca_s": statistics.median(pcas),
            "pca_min_s": min(pcas)}


def map_redraw(n: int) -> tuple[float, float, float]:
    """ms per repaint while panning: the app's map against a plain pyqtgraph ScatterPlotItem
    (pxMode, one brush) of the same points in an equal window, alternated step by step; and
    the part of the map's repaint spent painting its points (PointCloudItem.paint)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from workbench.core.embeddings.vectors import WordVectors
    from workbench.qt.panels.embeddings.map_view import MapView
    from workbench.qt.widgets.point_cloud import PointCloudItem

    app = QApplication.instance() or QApplication([])
    paints: list[float] = []
    original = PointCloudItem.paint

    def timed_paint(item, *args):
        start = time.perf_counter()
        original(item, *args)
        paints.append(time.perf_counter() - start)

    PointCloudItem.paint = timed_paint  # before the item exists: Qt binds the override then
    rng = np.random.default_rng(1)
    vectors = WordVectors([f"w{i}" for i in range(n)], rng.normal(size=(n, 8)).astype("f4"),
                          counts=rng.integers(1, 1000, n))
    coords = rng.normal(size=(n, 2)).astype("f4")
    view = MapView()
    view.resize(1200, 800)
    view.show()
    view.set_vectors(vectors)
    view.show_coords(coords, "bench")
    reference = pg.PlotWidget(background="w")
    reference.resize(1200, 760)
    reference.addItem(pg.ScatterPlotItem(coords[:, 0], coords[:, 1], size=3, pen=None,
                                         brush=pg.mkBrush(68, 1, 84, 210)))
    reference.show()
    app.processEvents()
    times: dict[str, list[float]] = {"app": [], "reference": []}
    for step in range(30):
        for key, plot in (("app", view.plot), ("reference", reference)):
            plot.plotItem.vb.translateBy(x=0.05 * (1 if step % 2 else -1))
            start = time.perf_counter()
            plot.viewport().repaint()
            app.processEvents()
            times[key].append(time.perf_counter() - start)
    view.close()
    reference.close()
    PointCloudItem.paint = original
    return (1000 * statistics.median(times["app"]), 1000 * statistics.median(times["reference"]),
            1000 * statistics.median(paints))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--parts", default="training,query,map",
                        help="comma-separated subset of training,query,map")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if "training" in parts:
        app_wps, direct_wps = training_ratio(args.repeats, args.epochs)
        print(f"training words/s: app {app_wps:,.0f}, gensim direct {direct_wps:,.0f}, "
              f"ratio {app_wps / direct_wps:.3f}")
    if "query" in parts:
        numbers = query_and_pca(100_000, 300, args.repeats)
        print(f"neighbours at 100k x 300: median {numbers['query_ms']:.2f} ms, "
              f"p95 {numbers['query_p95_ms']:.2f} ms; one read of the matrix "
              f"{numbers['read_ms']:.2f} ms (ratio "
              f"{numbers['query_ms'] / numbers['read_ms']:.2f})")
        print(f"PCA 100k x 300: median {numbers['pca_s']:.2f} s, "
              f"best {numbers['pca_min_s']:.2f} s")
    if "map" in parts:
        app_ms, scatter_ms, points_ms = map_redraw(100_000)
        print(f"map of 100k points, repaint while panning: median {app_ms:.1f} ms (its points "
              f"{points_ms:.1f} ms); ScatterPlotItem of the same points {scatter_ms:.1f} ms "
              f"({scatter_ms / app_ms:.1f}x slower)")

if __name__ == "__main__":
    main()
