"""The Embeddings panel in the real window: import vectors, ask questions, draw and search the
map, export, train from the corpus, and say clearly what cannot be done."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.app.backend import Backend
from workbench.app.window import build_window, settle

WORDS = ["king", "queen", "man", "woman", "prince", "princess", "sword", "shield", "apple"]


@pytest.fixture
def window(qtbot, settings, tmp_path):
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    yield window
    window.controller.shutdown()


@pytest.fixture
def vector_file(tmp_path):
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(len(WORDS), 6))
    rows[1] = rows[0] + 0.05  # queen right beside king
    path = tmp_path / "v.txt"
    lines = [f"{len(WORDS)} 6"] + [w + " " + " ".join(f"{x:.5f}" for x in r)
                                   for w, r in zip(WORDS, rows, strict=True)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_import_then_query_the_explorer(window, vector_file):
    panel = window.panels["embeddings"]
    assert panel.import_vectors(str(vector_file), "word2vec-text")
    assert settle(window, 30)
    assert len(panel.vectors) == len(WORDS)
    panel.explorer.word.setText("king")
    assert panel.explorer.find_neighbours()
    assert settle(window, 30)  # answered by a query, off the GUI thread
    assert panel.explorer.neighbour_table.item(0, 1).text() == "queen"
    panel.explorer.word.setText("nonexistent")
    panel.explorer.find_neighbours()
    assert settle(window, 30)
    assert "'nonexistent' is not in the vocabulary" in panel.explorer.message.text()
    assert window.controller.last_error == ""  # said in the explorer, not in a message box
    panel.explorer.compare()
    assert settle(window, 30)
    assert panel.explorer.similarity_label.text().startswith("cos = 0.9")


def test_map_draws_every_word_highlights_and_exports(window, vector_file, tmp_path):
    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    assert panel.draw_map("pca")
    settle(window, 30)
    drawn = sum(item.count for item in panel.map.bands)
    assert drawn == len(WORDS) and panel.map.coords.shape == (len(WORDS), 2)
    assert panel.map.highlight("king", k=3)
    assert settle(window, 30)
    assert len(panel.map.found.data) == 4  # king and its three neighbours ringed
    assert "queen" in panel.map.status.text()
    from PySide6.QtCore import QPointF

    panel.map.plot.autoRange()  # the search zoomed in on king; hover needs apple in view
    box, scene = panel.map.plot.plotItem.vb, panel.map.plot.scene()
    assert not panel.map.hover.isVisible()  # no empty label box before any hover
    apple = panel.map.coords[WORDS.index("apple")]
    scene.sigMouseMoved.emit(box.mapViewToScene(QPointF(*apple)))
    assert panel.map.hover.isVisible() and panel.map.hover.textItem.toPlainText() == "apple"
    csv = tmp_path / "map.csv"
    from workbench.qt.widgets.plot_export import export_csv

    export_csv(csv, *panel.map.table())
    assert csv.read_text().splitlines()[0] == "word,x,y,count"
    from PySide6.QtGui import QImage

    from workbench.qt.widgets.plot_export import export_png, export_svg

    image = QImage(str(export_png(panel.map.plot, tmp_path / "map.png", width=600)))
    coloured = 0  # axes, grid and labels are grey; points and rings are in colour
    for x in range(image.width()):
        for y in range(0, image.height(), 2):
            pixel = image.pixelColor(x, y)
            rgb = (pixel.red(), pixel.green(), pixel.blue())
            coloured += max(rgb) - min(rgb) > 60
    assert coloured > 30
    assert "<svg" in export_svg(panel.map.plot, tmp_path / "map.svg").read_text()
    assert panel.export_vectors(str(tmp_path / "out.bin"), "word2vec-binary")
    assert settle(window, 30)
    assert (tmp_path / "out.bin").stat().st_size > 0 and "out.bin" in panel.status.text()


def test_bad_vector_file_shows_the_line_and_keeps_the_old_vectors(window, vector_file,
                                                                   tmp_path):
    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    bad = tmp_path / "bad.txt"
    bad.write_text("2 3\nthe 1 2 3\nking 1 x 3\n", encoding="utf-8")
    panel.import_vectors(str(bad), "word2vec-text")
    settle(window, 30)
    assert "line 3: 'x' is not a number" in window.controller.last_error
    assert len(panel.vectors) == len(WORDS)  # nothing half-loaded replaced the good vectors


def test_char_tokenizer_cannot_take_word_vectors(window, vector_file, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the king and the queen\n" * 50, encoding="utf-8")
    window.open_corpus(str(corpus))
    settle(window, 30)
    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    panel.use_in_model()
    assert settle(window, 30)
    assert "character-level" in panel.bridge_report.toPlainText()
    assert window.controller.embedding_init is None


def test_train_on_the_loaded_corpus_plots_each_epoch(window, tmp_path):
    from dataclasses import replace

    corpus = tmp_path / "c.txt"
    corpus.write_text("the king spoke to the queen\nthe queen spoke to the king\n" * 200,
                      encoding="utf-8")
    window.open_corpus(str(corpus))
    settle(window, 30)
    panel = window.panels["embeddings"]
    panel.form.set_config(replace(panel.form.config(), epochs=3, vector_size=10, min_count=1,
                                  evaluate=False, workers=1))
    assert panel.train()
    assert settle(window, 60)
    assert panel.vectors is not None and "king" in panel.vectors
    assert [row["epoch"] for row in panel.plots.rows] == [1.0, 2.0, 3.0]
    assert len(panel.plots.loss_curve.getData()[0]) == 3


def test_search_box_rings_the_word_and_neighbour_lists_export(window, vector_file, tmp_path,
                                                              qtbot):
    from PySide6.QtCore import Qt

    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    panel.draw_map("pca")
    settle(window, 30)
    panel.map.search.setText("queen")
    qtbot.keyClick(panel.map.search, Qt.Key.Key_Return)
    assert settle(window, 30)
    ringed = panel.map.found.data
    assert len(ringed) == 9  # queen and its eight neighbours (every other word here)
    index = panel.vectors.index["queen"]
    assert (ringed[0]["x"], ringed[0]["y"]) == pytest.approx(tuple(panel.map.coords[index]))
    (x0, x1), (y0, y1) = panel.map.plot.plotItem.vb.viewRange()
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in zip(ringed["x"], ringed["y"],
                                                                strict=True))  # in view
    named = [label.textItem.toPlainText() for label in panel.map.found_labels]
    assert named[0] == "queen" and "king" in named[1:]  # every ringed point says its word
    panel.map.search.setText("dragon")
    qtbot.keyClick(panel.map.search, Qt.Key.Key_Return)
    assert settle(window, 30)
    assert "'dragon' is not on the map" in panel.map.status.text()

    panel.explorer.word.setText("king sword")
    panel.explorer.k.setValue(2)
    panel.explorer.find_neighbours()
    assert settle(window, 30)
    assert panel.explorer.neighbour_table.rowCount() == 4
    out = tmp_path / "neighbours.csv"
    assert panel.explorer.export_neighbours(str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "word,rank,neighbour,cosine"
    assert lines[1].startswith("king,1,queen,0.9") and lines[3].startswith("sword,1,")


def test_coverage_against_a_word_tokenizer_is_handed_to_training(window, vector_file):
    from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
    from workbench.core.corpus.dataset import TokenizedCorpus
    from workbench.core.corpus.tokenizers import WordTokenizer

    tokenizer = WordTokenizer.train("the King and the queen and the dragon",
                                    DEFAULT_WORD_PATTERN)
    ids = np.arange(5, dtype=np.int64)
    window.controller.set_tokens(TokenizedCorpus(tokenizer, ids, ids, ids[:0], ids[:0]))
    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    panel.freeze.setChecked(True)
    assert panel.use_in_model()
    assert settle(window, 30)
    report = panel.bridge_report.toPlainText()
    assert "Coverage: 2 of" in report and "dragon" in report  # King (lower-cased), queen
    matrix, freeze = window.controller.embedding_init
    assert freeze and matrix.shape == (tokenizer.vocab_size, 6)
    king = tokenizer.encode("King")[0]
    np.testing.assert_allclose(matrix[king], panel.vectors.vector("king"))
    window.controller.set_tokens(TokenizedCorpus(tokenizer, ids, ids, ids[:0], ids[:0]))
    assert window.controller.embedding_init is None  # rows for an old vocabulary are dropped
    assert "Check coverage again" in panel.bridge_report.toPlainText()


def test_semantic_axes_place_words_by_their_cosine_with_each_direction(window, vector_file):
    panel = window.panels["embeddings"]
    panel.import_vectors(str(vector_file), "word2vec-text")
    settle(window, 30)
    panel.map.method.setCurrentText("Semantic axes")
    for edit, word in zip(panel.map.axes_edits, ["man", "woman", "sword", "apple"], strict=True):
        edit.setText(word)
    panel.map.compute.click()
    assert settle(window, 30)
    expected = panel.vectors.project_on_axes(("man", "woman"), ("sword", "apple"))
    np.testing.assert_allclose(panel.map.coords, expected, rtol=1e-6)
    assert "woman − man" in panel.map.plot.getAxis("bottom").labelText
    panel.map.axes_edits[3].setText("dragon")
    panel.map.compute.click()
    assert settle(window, 30)
    assert "'dragon' is not in the vocabulary" in panel.map.status.text()


def test_fasttext_epochs_plot_no_loss_but_say_so(qtbot):
    from workbench.qt.panels.embeddings.epoch_plots import EpochPlots

    plots = EpochPlots()
    qtbot.addWidget(plots)
    for epoch in (1, 2):
        plots.add_epoch(epoch, {"analogy_accuracy": 0.1 * epoch, "wordsim353": 0.2,
                                "simlex999": 0.1})
    assert "not reported by fastText" in plots.loss_plot.titleLabel.text
    assert len(plots.loss_curve.getData()[0] or []) == 0
    assert not plots.loss_plot.getAxis("left").isVisible()
    assert list(plots.curves["analogy_accuracy"].getData()[1]) == pytest.approx([0.1, 0.2])
    plots.clear()
    plots.add_epoch(1, {"loss": 5.0})
    assert plots.loss_plot.getAxis("left").isVisible()
    assert list(plots.loss_curve.getData()[1]) == [5.0]


def test_map_greys_out_a_method_this_install_lacks_and_says_why(qtbot):
    from PySide6.QtCore import Qt

    from workbench.qt.controller import WorkbenchController
    from workbench.qt.gallery.fake_backend import FakeBackend
    from workbench.qt.panels.embeddings.map_view import MapView

    view = MapView(WorkbenchController(FakeBackend()),
                   unavailable={"umap": "UMAP is not part of this installer."})
    qtbot.addWidget(view)
    titles = [view.method.itemText(i) for i in range(view.method.count())]
    row = titles.index("UMAP (not installed)")
    assert not view.method.model().item(row).isEnabled()
    assert view.method.itemData(row, Qt.ItemDataRole.ToolTipRole).startswith("UMAP is not")
    assert "UMAP is not part of this installer." in view.status.text()
    for method in ("pca", "tsne"):  # the others stay choosable
        assert view.method.model().item(view.method.findData(method)).isEnabled()
    requested = []
    view.compute_requested.connect(requested.append)
    view.vectors = object()
    view.method.setCurrentIndex(view.method.findData("tsne"))
    view.compute.click()
    assert requested == ["tsne"]
