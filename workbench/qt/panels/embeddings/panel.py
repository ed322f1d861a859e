"""The Embeddings panel: train word2vec or fastText on the corpus, watch it per epoch, explore
the vectors (neighbours, analogies, maps), import and export them, and hand them to a model."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.events import EpochEnded, JobFailed, JobStopped
from workbench.core.jobs import UserFacingError, user_message
from workbench.core.resources import resource_path
from workbench.qt.panel import Panel
from workbench.qt.panels.embeddings.bridge_tab import BridgeTab
from workbench.qt.panels.embeddings.epoch_plots import EpochPlots
from workbench.qt.panels.embeddings.explorer import Explorer
from workbench.qt.panels.embeddings.hs_tree import HierarchicalTreeView
from workbench.qt.panels.embeddings.map_view import MapView
from workbench.qt.panels.embeddings.negative_sampling import NegativeSamplingView
from workbench.qt.panels.embeddings.w2v_diagram import Word2vecDiagram
from workbench.qt.widgets import trust_dialog
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.control_column import ControlColumn
from workbench.qt.widgets.dialog_folders import remember, start_folder

IMPORT_FORMATS = {
    "word2vec text (.txt, header)": "word2vec-text",
    "fastText .vec": "fasttext-vec",
    "GloVe text (no header)": "glove",
    "word2vec binary (.bin)": "word2vec-binary",
    "gensim KeyedVectors (a pickle: runs code, asks first)": "gensim",
}
EXPORT_FORMATS = {
    "word2vec text": ("word2vec-text", "txt"),
    "word2vec binary": ("word2vec-binary", "bin"),
    "TensorBoard Projector TSV pair": ("tensorboard", "tsv"),
}


class EmbeddingsPanel(Panel):
    name = "embeddings"
    title = "Embeddings"
    area = "right"

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(controller, parent)
        self.vectors = None
        self._training = False
        self.form = ConfigForm(EmbeddingConfig)
        self.train_button = QPushButton("Train vectors")
        self.train_button.setToolTip("Train on the loaded corpus in the background")
        self.train_button.clicked.connect(self.train)
        self.import_format = QComboBox()
        self.import_format.addItems(list(IMPORT_FORMATS))
        import_button = QPushButton("Import…")
        import_button.clicked.connect(self._import_dialog)
        self.export_format = QComboBox()
        self.export_format.addItems(list(EXPORT_FORMATS))
        export_button = QPushButton("Export…")
        export_button.clicked.connect(self._export_dialog)
        self.status = QLabel("Load a corpus, then train vectors (or import some).")
        self.status.setWordWrap(True)
        # The settings belong to training only, so they sit in the Train tab: the explorer and
        # the map get the panel's whole width (it is often half a window).
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 4, 0)
        side_layout.addWidget(self.form)
        side_layout.addWidget(self.train_button)
        side_layout.addStretch(1)
        side_scroll = ControlColumn(side)  # widens with zoomed text

        self.plots = EpochPlots()
        self.diagram = Word2vecDiagram()  # the architecture the form describes
        self.form.changed.connect(self._show_diagram)
        controller.corpus_changed.connect(self._show_diagram)
        controller.corpus_changed.connect(self._on_corpus)
        beside = QSplitter(Qt.Orientation.Vertical)
        beside.addWidget(self.diagram)
        beside.addWidget(self.plots)
        beside.setSizes([260, 400])
        self.training_tab = QSplitter()
        self.training_tab.addWidget(side_scroll)
        self.training_tab.addWidget(beside)
        self.training_tab.setStretchFactor(1, 1)
        self.training_tab.setChildrenCollapsible(False)
        self.explorer = Explorer(controller)
        explorer_scroll = QScrollArea()
        explorer_scroll.setWidgetResizable(True)
        explorer_scroll.setWidget(self.explorer)
        self.map = MapView(controller,
                           unavailable=controller.backend.embeddings.unavailable_map_methods())
        self.map.compute_requested.connect(self.draw_map)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.training_tab, "Train")
        self.tabs.addTab(explorer_scroll, "Explore")
        self.tabs.addTab(self.map, "Map")
        self.negative = NegativeSamplingView()
        self.negative.setObjectName("embeddings-negative")  # a lesson step opens this tab
        self.tabs.addTab(self.negative, "Negative sampling")
        self.tree = HierarchicalTreeView()
        self.tree.setObjectName("embeddings-tree")
        self.tabs.addTab(self.tree, "Hierarchical softmax")
        self.bridge = BridgeTab(controller)
        self.freeze, self.bridge_report = self.bridge.freeze, self.bridge.report
        self.bridge.check.clicked.connect(self.use_in_model)
        self.tabs.addTab(self.bridge, "Use in a model")
        files = QHBoxLayout()
        for combo, button in ((self.import_format, import_button),
                              (self.export_format, export_button)):
            files.addWidget(combo, 1)
            files.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(files)
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)
        controller.job_event.connect(self._on_job_event)
        controller.lesson_action.connect(self._on_lesson)
        for bar in (self.plots.export_bar, self.map.export_bar):
            bar.on_error = controller.report_error

    # --- training -----------------------------------------------------------------------------

    @Slot()
    def train(self) -> bool:
        corpus, config = self.controller.corpus, self.form.config()
        if corpus is None:
            self.status.setText("Load a corpus first (Corpus panel or File ▸ Open).")
            return False
        if config is None or config.problems():
            self.status.setText("Fix the settings first: " + " ".join(self.form.problems()))
            return False
        try:
            spec = self.controller.backend.embeddings.train_job(corpus, config)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))
            return False
        started = self.controller.run_job(spec, on_result=self.set_vectors,
                                          on_error=self._on_stopped)
        if started:
            self._training = True
            self.plots.clear()
            self.train_button.setEnabled(False)
            self.tabs.setCurrentWidget(self.training_tab)
            self.status.setText(f"Training on {corpus.name}… (progress per epoch)")
        return started

    @Slot(object)
    def _on_job_event(self, event) -> None:
        if self._training and isinstance(event, EpochEnded):
            self.plots.add_epoch(event.epoch, event.metrics)

    def _on_stopped(self, outcome) -> None:
        self._training = False
        self.train_button.setEnabled(True)
        self.status.setText("Training stopped." if type(outcome).__name__ == "JobCancelled"
                            else "Training failed: see the message.")

    def _on_corpus(self, corpus) -> None:
        """Before any vectors, the status says what training would read."""
        if self.vectors is None and not self._training and corpus is not None:
            self.status.setText(f"Train vectors on {corpus.name} (or import some).")

    def _show_diagram(self, *_) -> None:
        """The diagram at the vocabulary of the vectors shown, else of the corpus's words."""
        corpus = self.controller.corpus
        stats = corpus.stats if corpus is not None else None  # (None until it is counted)
        vocab = len(self.vectors.words) if self.vectors is not None else (
            stats.word_vocab if stats is not None else 0)
        self.diagram.show_config(self.form.config(), vocab, exact=self.vectors is not None)

    def set_vectors(self, vectors) -> None:
        self._training = False
        self.train_button.setEnabled(True)
        self.vectors = vectors
        self.explorer.set_vectors(vectors)
        self.map.set_vectors(vectors)
        self.negative.set_vectors(vectors)
        self.tree.set_vectors(vectors)
        self._show_diagram()
        notes = "; ".join(vectors.notes)
        self.status.setText(f"Vectors ready: {vectors.source}. {notes}")

    # --- maps ---------------------------------------------------------------------------------

    @Slot(str)
    def draw_map(self, method: str) -> bool:
        if self.vectors is None:
            return False
        if method == "axes":
            return self.map.draw_axes([e.text().strip() for e in self.map.axes_edits])
        spec = self.controller.backend.embeddings.map_job(self.vectors, method)
        title = spec.title
        return self.controller.run_job(
            spec, on_result=lambda coords: self.map.show_coords(coords, title))

    # --- files --------------------------------------------------------------------------------

    @Slot(str, object)
    def _on_lesson(self, action: str, value) -> None:
        """A lesson step loads word vectors shipped in resources/ (word2vec binary)."""
        if action == "vectors":
            self.import_vectors(str(resource_path(str(value))), "word2vec-binary")
            self.tabs.setCurrentIndex(1)  # Explore

    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import word vectors", start_folder("vectors"))
        if remember("vectors", path):
            self.import_vectors(path, IMPORT_FORMATS[self.import_format.currentText()])

    def import_vectors(self, path: str, fmt: str) -> bool:
        """Import in the background; a gensim native file (a pickle) only after the user said
        they trust it, since opening it runs its code."""
        if fmt == "gensim":
            if not trust_dialog.ask_trust(self, path):
                self.status.setText(f"{Path(path).name} was not opened (a pickle can run code). "
                                    "Import it as word2vec text or binary instead.")
                return False
            spec = self.controller.backend.embeddings.import_job(path, fmt, trust_code=True)
        else:
            spec = self.controller.backend.embeddings.import_job(path, fmt)
        return self.controller.run_job(spec, on_result=self.set_vectors)

    def _export_dialog(self) -> None:
        if self.vectors is None:
            self.status.setText("Nothing to export yet.")
            return
        fmt, suffix = EXPORT_FORMATS[self.export_format.currentText()]
        path, _ = QFileDialog.getSaveFileName(self, "Export word vectors", f"vectors.{suffix}")
        if path:
            self.export_vectors(path, fmt)

    def export_vectors(self, path: str, fmt: str) -> bool:
        """Write the vectors as a query (100k × 300 numbers take a while to format)."""
        try:
            spec = self.controller.backend.embeddings.export_job(self.vectors, path, fmt)
        except UserFacingError as exc:
            self.controller.report_error(f"Could not export to {path}. {user_message(exc)}")
            return False

        def done(written: list[str]) -> None:
            self.status.setText("Exported " + ", ".join(Path(p).name for p in written))

        def failed(outcome: JobStopped) -> None:
            why = outcome.message if isinstance(outcome, JobFailed) else "cancelled"
            self.controller.report_error(f"Could not export to {path}: {why}")
        self.status.setText(f"Exporting to {path}…")
        return self.controller.run_query(spec, on_result=done, on_error=failed)

    def use_in_model(self) -> bool:
        """The Use in a model tab's check, on the vectors shown (bridge_tab.py)."""
        return self.bridge.use_in_model(self.vectors)
