"""The word2vec diagram follows the Train tab's settings (issue 33 figure 24): skip-gram's one
centre word predicting 2m context words, CBOW's 2m context words averaged to predict the centre,
the sizes and the output layer of the settings."""

from __future__ import annotations

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.qt.panels.embeddings.w2v_diagram import Word2vecDiagram, diagram_boxes


def test_skip_gram_and_cbow_boxes_follow_the_settings():
    left, right = diagram_boxes(EmbeddingConfig(architecture="skip-gram", window=2,
                                                negative=7), 3211)
    assert left == [("input", "w(t)", "|V| = 3,211")]
    assert [title for _, title, _ in right] == ["w(t-2)", "w(t-1)", "w(t+1)", "w(t+2)",
                                                "negative sampling: 1 + 7 dot products"]
    left, right = diagram_boxes(EmbeddingConfig(architecture="cbow", window=5,
                                                objective="hierarchical"), 0)
    assert [kind for kind, _, _ in left] == ["input"] * 7  # three, the elided middle, three
    assert left[3][1:] == ("…", "10 words in all")
    assert right[0][:2] == ("output", "w(t)") and "log₂|V|" in right[1][1]
    assert "load a corpus" in left[0][2]  # no vocabulary known yet
    assert diagram_boxes(EmbeddingConfig(), 12412, exact=False)[0][0][2] == "|V| ≤ 12,412"


def test_the_panel_redraws_it_when_a_setting_changes(make_panel):
    from workbench.qt.panels.embeddings.panel import EmbeddingsPanel

    panel = make_panel(EmbeddingsPanel)
    panel.form.set_config(EmbeddingConfig(architecture="cbow", window=1))
    panel._show_diagram()
    assert panel.diagram.titles[:2] == ["h (d = 100)", "w(t-1)"]
    panel.form.set_config(EmbeddingConfig(architecture="skip-gram", window=1, vector_size=50))
    panel.form.changed.emit(panel.form.config())
    assert panel.diagram.titles[:2] == ["h (d = 50)", "w(t)"]


def test_no_settings_draw_nothing(qtbot):
    view = Word2vecDiagram()
    qtbot.addWidget(view)
    view.show_config(None, 10)
    assert view.titles == [] and not view.scene().items()


def test_a_loaded_corpus_is_named_before_any_vectors(make_panel):
    from workbench.qt.gallery.fake_data import corpus_of
    from workbench.qt.panels.embeddings.panel import EmbeddingsPanel

    panel = make_panel(EmbeddingsPanel)
    assert "Load a corpus" in panel.status.text()
    corpus = corpus_of("the cat sat on the mat\n" * 5)
    panel.controller.set_corpus(corpus)
    assert panel.status.text() == f"Train vectors on {corpus.name} (or import some)."
