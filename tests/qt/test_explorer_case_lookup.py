"""The explorer answers 'Romeo' from vectors trained on lowercased text, and says which form
it used."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.app.embeddings_backend import EmbeddingsBackend
from workbench.core.embeddings.vectors import WordVectors
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.panels.embeddings.explorer import Explorer


@pytest.fixture
def explorer(qtbot):
    controller = WorkbenchController(FakeBackend(embeddings=EmbeddingsBackend()))
    explorer = Explorer(controller)
    qtbot.addWidget(explorer)
    explorer.set_vectors(WordVectors(
        ["romeo", "juliet", "montague", "capulet", "sword"], np.array(
            [[1, 0, 0], [1, 0.2, 0], [0, 1, 0], [0.2, 1, 0], [0, 0, 1]], dtype=np.float32),
        source="lowercased.txt"))
    yield explorer
    controller.shutdown()


def answered(qtbot, widget) -> None:
    """Wait until the questions queued by `widget` are answered (they run as queries)."""
    queue = widget.controller.query_queue
    qtbot.waitUntil(lambda: not queue.busy, timeout=10_000)


def column(table, c: int) -> list[str]:
    return [table.item(r, c).text() for r in range(table.rowCount())]


def test_neighbours_of_a_capitalised_word_use_its_lowercase_form(qtbot, explorer):
    explorer.word.setText("Romeo")
    explorer.k.setValue(2)
    explorer.find_neighbours()
    answered(qtbot, explorer)
    assert column(explorer.neighbour_table, 0) == ["romeo", "romeo"]
    assert column(explorer.neighbour_table, 1)[0] == "juliet"
    assert "'Romeo' → 'romeo'" in explorer.message.text()
    assert "is not in the vocabulary" not in explorer.message.text()


def test_analogy_and_similarity_say_which_forms_they_used(qtbot, explorer):
    for edit, word in ((explorer.a, "Romeo"), (explorer.b, "juliet"), (explorer.c, "Montague")):
        edit.setText(word)
    explorer.solve_analogy()
    answered(qtbot, explorer)
    assert column(explorer.analogy_table, 0)[0] == "capulet"
    assert "'Romeo' → 'romeo'" in explorer.message.text()
    assert "'Montague' → 'montague'" in explorer.message.text()
    assert "juliet'" not in explorer.message.text()  # typed as it is in the vocabulary
    explorer.sim_a.setText("romeo")
    explorer.sim_b.setText("juliet")
    explorer.compare()
    answered(qtbot, explorer)
    assert explorer.message.text() == "lowercased.txt: 5 words × 3 dimensions."


def test_a_word_in_no_case_is_still_reported_unknown(qtbot, explorer):
    explorer.word.setText("Tybalt")
    explorer.find_neighbours()
    answered(qtbot, explorer)
    assert "'Tybalt' is not in the vocabulary" in explorer.message.text()


def test_map_search_rings_the_lowercase_word_for_a_capitalised_query(qtbot, explorer):
    from workbench.qt.panels.embeddings.map_view import MapView

    view = MapView(explorer.controller)
    qtbot.addWidget(view)
    view.set_vectors(explorer.vectors)
    view.show_coords(explorer.vectors.vectors[:, :2].copy(), "first two dimensions")
    assert view.highlight("Romeo", k=2)
    answered(qtbot, view)
    assert view.found_labels[0].textItem.toPlainText() == "romeo"
    assert view.status.text().startswith("romeo (as 'Romeo' is not in the vocabulary)")
    view.highlight("Tybalt")
    answered(qtbot, view)
    assert "'Tybalt' is not on the map" in view.status.text()
