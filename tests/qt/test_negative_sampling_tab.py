"""The Embeddings panel's Negative sampling tab: with vectors trained here (input and output
vectors) it lists one pair's loss term by term and plots the noise distribution; vectors without
output vectors say why there is nothing to show."""

from __future__ import annotations

import numpy as np

from workbench.qt.gallery.fake_data import word_vectors
from workbench.qt.panels.embeddings.panel import EmbeddingsPanel


def with_outputs(vectors):
    vectors.output_vectors = np.random.default_rng(1).normal(size=vectors.vectors.shape)
    return vectors


def test_a_pair_of_the_vectors_own_is_worked_out(make_panel):
    panel = make_panel(EmbeddingsPanel)
    vectors = with_outputs(word_vectors())
    panel.set_vectors(vectors)
    tab = panel.negative
    assert tab.centre.text() == "king"  # the most frequent word of four letters or more
    assert tab.context.text() != "king"
    shown = tab.view.computation
    assert shown is not None and shown.values["loss"] > 0
    assert len(shown.values["noise"]) == 5
    assert tab.figure.isVisibleTo(tab)
    tab.context.setText("sword")
    tab.k.setValue(3)  # recomputes
    assert len(tab.view.computation.values["noise"]) == 3
    assert "'king', 'sword'" in tab.view.computation.title
    tab.centre.setText("dragon")
    tab.recompute()
    assert "input word 'dragon'" in tab.problem.text()


def test_vectors_without_output_vectors_say_what_to_do(make_panel):
    panel = make_panel(EmbeddingsPanel)
    panel.set_vectors(word_vectors())
    tab = panel.negative
    assert tab.view.computation is None and "negative sampling" in tab.view.toPlainText()
    assert not tab.k.isEnabled() and not tab.figure.isVisibleTo(tab)


def test_cbow_vectors_say_one_input_word_stands_for_the_window(make_panel):
    panel = make_panel(EmbeddingsPanel)
    vectors = with_outputs(word_vectors())
    vectors.architecture = "CBOW"
    panel.set_vectors(vectors)
    assert "mean of the window's vectors" in panel.negative.view.toPlainText()
