"""The course's words × features table read off word vectors (issue 33 figure 26): each column a
semantic axis a → b, each cell a word's cosine with it; words in another case are found; a word
the vectors lack is named."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.embeddings.vectors import WordVectors
from workbench.core.jobs import UserFacingError
from workbench.qt.gallery.fake_data import word_vectors
from workbench.qt.panels.embeddings.panel import EmbeddingsPanel


def gendered() -> WordVectors:
    """Four words on a gender axis and a royal one, by construction."""
    words = ["man", "woman", "king", "queen"]
    vectors = np.array([[-1.0, -1.0, 0.1], [1.0, -1.0, 0.1], [-1.0, 1.0, 0.1], [1.0, 1.0, 0.1]])
    return WordVectors(words, vectors, np.array([4, 3, 2, 1]), "test")


def test_each_cell_is_a_words_cosine_with_its_axis():
    vectors = gendered()
    table = vectors.feature_table(["king", "queen"], [("man", "woman"), ("man", "king")])
    assert table.shape == (2, 2)
    assert table[0, 0] < 0 < table[1, 0]  # king on man's side of gender, queen on woman's
    unit = vectors.unit
    axis = (unit[2] - unit[0]) / np.linalg.norm(unit[2] - unit[0])
    assert table[1, 1] == pytest.approx(float(unit[3] @ axis))
    with pytest.raises(UserFacingError, match="'dragon' is not in the vocabulary"):
        vectors.feature_table(["dragon"], [("man", "woman")])
    with pytest.raises(UserFacingError, match="at least one axis"):
        vectors.feature_table(["king"], [])


def test_the_explorer_fills_the_table(make_panel, qtbot):
    panel = make_panel(EmbeddingsPanel)
    panel.set_vectors(word_vectors())
    explorer = panel.explorer
    explorer.feature_words.setText("KING queen")
    explorer.feature_axes.setText("man:woman sword:romeo broken")  # 'broken' is not a:b
    assert explorer.tabulate_features()
    qtbot.waitUntil(lambda: explorer.feature_table.rowCount() == 2, timeout=10_000)
    table = explorer.feature_table
    assert table.columnCount() == 2
    assert table.horizontalHeaderItem(0).text() == "man → woman"
    expected = word_vectors().feature_table(["king", "queen"], [("man", "woman"),
                                                                ("sword", "romeo")])
    assert table.item(1, 1).text() == f"{expected[1, 1]:+.2f}"
