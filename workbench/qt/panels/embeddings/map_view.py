"""The 2-D map of the vocabulary: pan, zoom, hover for a word, search to highlight it and join
it to its nearest neighbours, colour by frequency.

100k points stay smooth: points are split into a few frequency bands, each drawn by one
PointCloudItem (a single drawPoints call, no per-point Python objects), and hover looks the
nearest point up in a k-d tree instead of asking every item. The search's neighbours and the
semantic axes are query jobs (a product with the whole matrix), never GUI-thread work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.events import failure_text
from workbench.core.jobs import UserFacingError
from workbench.qt.widgets.boxes import readable
from workbench.qt.widgets.plot_export import PlotExportBar
from workbench.qt.widgets.point_cloud import PointCloudItem

if TYPE_CHECKING:  # scipy.spatial loads when a map is drawn, not with the window
    from scipy.spatial import cKDTree

BANDS = 8  # colour steps by frequency rank
LABELLED = 25  # the most frequent words keep a label on the map
METHOD_TITLES = {"PCA": "pca", "t-SNE": "tsne", "UMAP": "umap", "Semantic axes": "axes"}


class MapView(QWidget):
    compute_requested = Signal(str)  # "pca" | "tsne" | "umap"

    def __init__(self, controller, parent: QWidget | None = None,
                 unavailable: dict[str, str] | None = None) -> None:
        """`unavailable`: methods this install lacks (method -> why), shown greyed out with
        the reason; the classroom installers leave UMAP out."""
        super().__init__(parent)
        self.controller = controller
        self.vectors = None
        self.coords: np.ndarray | None = None
        self.tree: cKDTree | None = None
        self.unavailable = dict(unavailable or {})
        self.method = QComboBox()
        for title, method in METHOD_TITLES.items():
            missing = method in self.unavailable
            self.method.addItem(f"{title} (not installed)" if missing else title, method)
            if missing:
                row = self.method.count() - 1
                self.method.model().item(row).setEnabled(False)
                self.method.setItemData(row, self.unavailable[method], Qt.ItemDataRole.ToolTipRole)
        self.method.setToolTip("PCA keeps global directions; t-SNE and UMAP keep "
                               "neighbourhoods. Semantic axes project every word on x = b − a "
                               "and y = d − c." + "".join(f"\n{why}" for why in
                                                          self.unavailable.values()))
        self.compute = QPushButton("Draw map")
        self.compute.clicked.connect(self._on_compute)
        self.axes_edits = [QLineEdit(w) for w in ("man", "woman", "poor", "rich")]
        self.search = QLineEdit()
        self.search.setPlaceholderText("find a word…")
        self.search.returnPressed.connect(lambda: self.highlight(self.search.text().strip()))
        self.status = QLabel(" ".join(["Train or import vectors, then draw a map.",
                                       *self.unavailable.values()]))
        self.status.setWordWrap(True)
        self.plot = readable(pg.PlotWidget(background="w"))
        self.bands: list[pg.ScatterPlotItem] = []
        self.labels: list[pg.TextItem] = []
        self.found_labels: list[pg.TextItem] = []
        self.hover = pg.TextItem(color="#000", anchor=(0, 1), fill=pg.mkBrush(255, 255, 220, 230))
        self.hover.setZValue(20)
        self.hover.setVisible(False)  # an empty label would still paint its filled box
        self.plot.addItem(self.hover, ignoreBounds=True)
        self.found = pg.ScatterPlotItem(size=14, pen=pg.mkPen("#D55E00", width=2),
                                        brush=pg.mkBrush(None))
        self.found.setZValue(10)
        self.links = pg.PlotDataItem(pen=pg.mkPen("#D55E00", width=1), connect="pairs")
        self.plot.addItem(self.links)
        self.plot.addItem(self.found)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse)
        controls = QHBoxLayout()
        for widget in (QLabel("Map"), self.method, QLabel("axes a, b, c, d"), *self.axes_edits,
                       self.compute, self.search):
            controls.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.plot, 1)
        self.export_bar = PlotExportBar(self.plot, self.table, "embedding-map")
        layout.addWidget(self.export_bar)

    def set_vectors(self, vectors) -> None:
        self.vectors = vectors
        self.coords = None
        if vectors is not None:  # not "Train or import vectors" when they are here
            self.status.setText(f"{len(vectors):,} word vectors ready: choose a map and press "
                                "Draw map.")

    def _on_compute(self) -> None:
        method = self.method.currentData()
        if self.vectors is None:
            self.status.setText("No vectors yet: train or import some first.")
        elif method == "axes":
            self.draw_axes([e.text().strip() for e in self.axes_edits])
        else:
            self.compute_requested.emit(method)

    def draw_axes(self, words: list[str]) -> bool:
        """Every word's cosine with x = b − a and y = d − c, computed as a query."""
        vectors = self.vectors
        try:
            spec = self.controller.backend.embeddings.map_job(vectors, "axes", axes=words)
        except UserFacingError as exc:
            self.status.setText(str(exc))
            return False

        def show(coords) -> None:
            if self.vectors is not vectors:
                return  # other vectors arrived meanwhile
            self.show_coords(coords, f"x: {words[0]} → {words[1]},  y: {words[2]} → {words[3]}")
            self.plot.setLabel("bottom", f"cosine with {words[1]} − {words[0]}")
            self.plot.setLabel("left", f"cosine with {words[3]} − {words[2]}")
        return self.controller.run_query(spec, on_result=show, on_error=self._failed,
                                         caller="map:axes")

    def _failed(self, outcome) -> None:
        self.status.setText(failure_text(outcome) or "Cancelled.")

    def show_coords(self, coords: np.ndarray, title: str) -> None:
        """Draw the map: one scatter item per frequency band, labels for the commonest words."""
        self.coords = np.asarray(coords, dtype=np.float32)
        for side in ("bottom", "left"):  # only semantic axes have meaningful units
            self.plot.setLabel(side, "")
        from scipy.spatial import cKDTree

        self.tree = cKDTree(self.coords)
        for item in self.bands + self.labels:
            self.plot.removeItem(item)
        self.bands, self.labels = [], []
        counts = self.vectors.counts
        rank = np.arange(len(self.coords)) if counts is None else np.argsort(np.argsort(-counts))
        band = np.minimum((np.log1p(rank) / np.log1p(max(len(rank), 2)) * BANDS).astype(int),
                          BANDS - 1)
        table = pg.colormap.get("viridis").getLookupTable(0.0, 0.85, BANDS, alpha=True)
        # rare words first, common ones last: the common words stay visible on top
        order = np.argsort(-rank, kind="stable")
        cloud = PointCloudItem(self.coords[order, 0], self.coords[order, 1], table[band[order]],
                               radius=2 if len(order) < 20_000 else 1)
        self.plot.addItem(cloud)
        self.bands.append(cloud)
        for index in self._spaced_labels(np.argsort(rank)):
            label = pg.TextItem(self.vectors.words[index], color="#333", anchor=(0.5, 1.2))
            label.setPos(*self.coords[index])
            self.plot.addItem(label)
            self.labels.append(label)
        self._clear_found()
        self.plot.setTitle(title)
        self.status.setText(f"{len(self.coords):,} words; colour: frequency rank (dark = "
                            "common, light = rare). Hover for a word; search to show its "
                            "neighbours.")
        self.plot.autoRange()

    def _spaced_labels(self, by_frequency: np.ndarray) -> list[int]:
        """The commonest words whose labels would not sit on one already chosen (the most
        frequent words crowd one corner of most maps)."""
        span = np.ptp(self.coords, axis=0)
        span[span == 0] = 1.0
        scaled = self.coords / span
        chosen: list[int] = []
        for index in by_frequency[:40 * LABELLED]:
            if all(np.abs(scaled[index] - scaled[other]).max() > 0.05 for other in chosen):
                chosen.append(int(index))
                if len(chosen) == LABELLED:
                    break
        return chosen

    def _clear_found(self) -> None:
        for label in self.found_labels:
            self.plot.removeItem(label)
        self.found_labels = []
        self.found.setData([], [])
        self.links.setData([], [])

    def highlight(self, word: str, k: int = 8) -> bool:
        """Ring `word` and join it to its k nearest neighbours (in the full vector space, found
        by a query); a word missing as typed is looked for in another case ('Romeo' finds
        'romeo'). False when there is no map to search."""
        typed = word.strip()
        vectors = self.vectors
        if self.coords is None or vectors is None or not typed:
            self.status.setText("Draw a map first, then search it." if typed else "")
            return False
        spec = self.controller.backend.embeddings.neighbours_job(vectors, [typed], k)
        return self.controller.run_query(
            spec, on_result=lambda answer: self._show_found(vectors, typed, answer),
            on_error=lambda _outcome: self._not_found(typed), caller="map:search")

    def _not_found(self, typed: str) -> None:
        self.status.setText(f"'{typed}' is not on the map.")

    def _show_found(self, vectors, typed: str, answer) -> None:
        if vectors is not self.vectors or self.coords is None or not answer.value:
            return
        word = answer.value[0][0]  # the vocabulary's form of the typed word
        index = vectors.index[word]
        neighbours = [vectors.index[w] for _, w, _ in answer.value]
        points = self.coords[[index, *neighbours]]
        self.found.setData(points[:, 0], points[:, 1])
        pairs = np.repeat(points[:1], len(neighbours), axis=0)
        segments = np.empty((2 * len(neighbours), 2), dtype=np.float32)
        segments[0::2], segments[1::2] = pairs, points[1:]
        self.links.setData(segments[:, 0], segments[:, 1])
        for label in self.found_labels:
            self.plot.removeItem(label)
        self.found_labels = []
        for order, i in enumerate([index, *neighbours]):  # the word in black, neighbours orange
            label = pg.TextItem(self.vectors.words[i], color="#D55E00" if order else "#000",
                                anchor=(-0.1, 0.5), fill=pg.mkBrush(255, 255, 255, 170))
            label.setPos(*self.coords[i])
            label.setZValue(15)
            self.plot.addItem(label)
            self.found_labels.append(label)
        shown_as = f" (as '{typed}' is not in the vocabulary)" if word != typed else ""
        self.status.setText(f"{word}{shown_as}: neighbours " + ", ".join(
            self.vectors.words[i] for i in neighbours))
        self._zoom_to(points)

    def _zoom_to(self, points: np.ndarray) -> None:
        """Frame the found word and its neighbours, at least a fifth of the map wide, so the
        search shows where they are and leaves some of the surroundings in view."""
        points = points.astype(np.float64)
        low, high = points.min(axis=0), points.max(axis=0)
        centre, half = (low + high) / 2, (high - low) / 2 * 1.3
        half = np.maximum(half, np.ptp(self.coords.astype(np.float64), axis=0) / 10)
        self.plot.setRange(xRange=(float(centre[0] - half[0]), float(centre[0] + half[0])),
                           yRange=(float(centre[1] - half[1]), float(centre[1] + half[1])),
                           padding=0)

    def _on_mouse(self, position) -> None:
        if self.tree is None or not self.plot.sceneBoundingRect().contains(position):
            return
        point = self.plot.plotItem.vb.mapSceneToView(position)
        view = self.plot.plotItem.vb.viewRange()
        radius = 0.02 * max(view[0][1] - view[0][0], view[1][1] - view[1][0])
        distance, index = self.tree.query([point.x(), point.y()], distance_upper_bound=radius)
        if np.isfinite(distance):
            self.hover.setText(self.vectors.words[index])
            self.hover.setPos(*self.coords[index])
            self.hover.setVisible(True)
        else:
            self.hover.setVisible(False)

    def table(self):
        if self.coords is None:
            return ["word", "x", "y"], [[], [], []]
        counts = self.vectors.counts if self.vectors.counts is not None else [""] * len(
            self.coords)
        return (["word", "x", "y", "count"],
                [self.vectors.words, self.coords[:, 0], self.coords[:, 1], list(counts)])
