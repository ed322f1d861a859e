"""What the cards and tooltips tell a student matches what the model computes, and cites
sources a student can find (issue 13, item 5)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.config.fields import form_fields
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.models import MODEL_CONFIGS, TransformerConfig
from workbench.core.config.summary import LayerRow, ModelSummary
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.trace import LayerTrace, Trace
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_traces import PROBE
from workbench.qt.panels.gates import GatesPanel
from workbench.qt.widgets import architecture_cards, cell_equations

# course-note file names and line numbers a student cannot look up
INTERNAL = re.compile(r"seed 0\d\d|seeds'|(?-i:\bSEEDS\b)|\b00\d:L\d+|\[not in seeds\]", re.I)


def transformer_summary() -> ModelSummary:
    rows = [LayerRow("embedding", "Embedding", "(B, T, 128)", 8000, 8000, ""),
            LayerRow("blocks.0", "Block", "(B, T, 128)", 100, 100, "")]
    return ModelSummary(arch="transformer", title="Transformer", rows=tuple(rows),
                        total_params=8100, keras_params=8100, batch_size=1, seq_len=8,
                        activation_floats=0, flops_per_token=0)


def all_card_texts() -> list[str]:
    summary = transformer_summary()
    texts = list(cell_equations.CARDS.values())
    for positional in ("sinusoidal", "learned", "none"):
        config = TransformerConfig(positional=positional)
        texts.append(architecture_cards.architecture_card(summary, config))
    return texts


def tooltips() -> list[str]:
    types = [TokenizerConfig, TrainingConfig, EmbeddingConfig, GenerationConfig,
             *MODEL_CONFIGS.values()]
    return [f.metadata["tooltip"] for t in types for f in form_fields(t)]


def test_cards_and_tooltips_cite_public_sources_not_course_files():
    for text in all_card_texts() + tooltips():
        assert not INTERNAL.search(text), INTERNAL.search(text).group()
    cards = " ".join(all_card_texts())
    for public in ("Jurafsky &amp; Martin, SLP3 ch. 9", "Vaswani et al. 2017", "Cho et al. 2014"):
        assert public in cards


def test_no_text_of_the_window_cites_course_files(window):
    """Every tooltip, "What is this?" and label of every panel, and the task settings' tooltips
    (the encoder task's counted sizes said "seed 002: 5,000")."""
    from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

    from workbench.core.config.tasks import TASK_CONFIGS

    found = []
    for widget in [window, *window.findChildren(QWidget)]:
        texts = [widget.toolTip(), widget.whatsThis()]
        if isinstance(widget, QLabel | QAbstractButton):
            texts.append(widget.text())
        found += [f"{widget.objectName() or type(widget).__name__}: {t[:80]}" for t in texts
                  if INTERNAL.search(t)]
    found += [tip for config in TASK_CONFIGS.values() for f in form_fields(config)
              if INTERNAL.search(tip := f.metadata["tooltip"])]
    assert found == []


def test_transformer_card_says_what_the_model_computes():
    summary = transformer_summary()
    sinusoidal = architecture_cards.architecture_card(summary, TransformerConfig())
    assert "√d · E[x] + P" in sinusoidal and "√128 ≈ 11.31" in sinusoidal
    learned = architecture_cards.architecture_card(summary,
                                                   TransformerConfig(positional="learned"))
    assert "X<sub>0</sub> = E[x] + P" in learned and "√d · E" not in learned
    # the biases the layers have are on the card
    for bias in ("b<sup>Q</sup>", "b<sup>K</sup>", "b<sup>V</sup>", "b<sup>O</sup>",
                 "b<sub>1</sub>", "b<sub>out</sub>"):
        assert bias in sinusoidal


def test_an_ablated_model_gets_the_card_of_what_it_computes():
    summary = transformer_summary()
    config = TransformerConfig(causal_mask=False, scale_scores=False, positional="none")
    card = architecture_cards.architecture_card(summary, config)
    assert "No mask" in card and "K<sup>T</sup> + M" not in card and "Masked" not in card
    assert "No division by √d<sub>k</sub>" in card
    assert "X<sub>0</sub> = E[x] &nbsp;<i>(ablation: no positional information" in card
    plain = architecture_cards.architecture_card(summary, TransformerConfig())
    assert "K<sup>T</sup> + M" in plain and "/ √d<sub>k</sub>" in plain


def gru_trace() -> Trace:
    rng = np.random.default_rng(1)
    t, hidden = len(PROBE), 5
    values = {g: 1 / (1 + np.exp(-rng.normal(0, 2, (t, hidden)))) for g in "rz"}
    values["n"] = np.tanh(rng.normal(0, 1, (t, hidden)))
    values["h"] = np.tanh(rng.normal(0, 1, (t, hidden)))
    layer = LayerTrace("layer 0", "gru", values, convention="torch convention")
    return Trace(np.arange(t), PROBE, rng.normal(0, 1, (t, 8)), [layer],
                 extras={"step": np.array(1)})


@pytest.fixture
def gates(qtbot):
    controller = WorkbenchController(FakeBackend())
    panel = GatesPanel(controller)
    qtbot.addWidget(panel)
    yield panel
    controller.shutdown()


def test_gru_heatmap_names_its_update_gate_convention_and_offers_the_course_one(gates):
    trace = gru_trace()
    gates.show_trace(trace)
    keys = [gates.gate_box.itemData(i) for i in range(gates.gate_box.count())]
    assert keys == ["r", "z", "z_course", "n", "h"]
    gates.gate_box.setCurrentIndex(keys.index("z"))
    z = trace.layers[0].values["z"]
    assert np.allclose(gates.heatmap.image_values(), z.T)
    assert "PyTorch's (= 1 − the course's z_t)" in gates.heatmap.plot.titleLabel.text
    gates.gate_box.setCurrentIndex(keys.index("z_course"))
    assert np.allclose(gates.heatmap.image_values(), (1 - z).T)
    assert "the course's (= 1 − PyTorch's z)" in gates.heatmap.plot.titleLabel.text


def test_word2vec_window_kind_is_offered_and_reaches_gensim():
    from workbench.core.embeddings.training import build_model, window_text

    assert build_model(EmbeddingConfig()).shrink_windows is True
    fixed = dataclasses.replace(EmbeddingConfig(), window_kind="fixed", window=3)
    assert build_model(fixed).shrink_windows is False
    assert window_text(fixed) == "fixed window of 3 words each side"


def test_encoder_decoder_and_masked_lm_cards_write_what_the_models_compute():
    from workbench.core.config.seq2seq import TransformerSeq2seqConfig
    from workbench.qt.widgets.seq2seq_cards import seq2seq_card

    pre = seq2seq_card(TransformerSeq2seqConfig(positional="sinusoidal", norm_placement="pre"))
    assert "√d·E<sub>src</sub>" in pre and "√d·E<sub>tgt</sub>" in pre  # the embedding scale
    assert "LayerNorm(Y) after the last block" in pre  # the final norm of a pre-LN decoder
    assert "+ b<sub>O</sub>)" in pre  # the output layer's bias
    post = seq2seq_card(TransformerSeq2seqConfig(positional="learned", norm_placement="post"))
    assert "√d·" not in post and "after the last block" not in post
    assert "Sinusoidal positional encoding" not in post  # learned positions: no sinusoid card
    head = architecture_cards.HEAD_FRAMES["masked_lm"]
    assert "LayerNorm(GELU(W h<sub>t</sub> + b))" in head and "E<sup>T</sup>" in head
