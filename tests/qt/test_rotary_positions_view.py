"""A rotary (Llama-style) transformer's positions as the window shows them: no table added to
the embeddings but the angles that turn q and k, and the architecture card's lines for each
Llama option (issue 34)."""

from __future__ import annotations

import numpy as np

from workbench.core.config.models import TransformerConfig
from workbench.qt.panels.attention.positions import position_tables, rotary_note
from workbench.qt.widgets.architecture_cards import embedding_line, llama_options


def test_rotary_angles_are_shown_with_a_similarity_that_depends_on_the_offset():
    steps, pairs = 6, 4
    angles = np.arange(steps)[:, None] * 10000.0 ** (-2 * np.arange(pairs) / 8)
    tables = position_tables({"rotary_angles": angles})
    assert tables is not None and "nothing is added" in tables.title
    np.testing.assert_allclose(tables.table, angles)
    assert tables.column_names[0] == "pair 0"
    # the mean of cos((i − j)·θ_p): the same along every diagonal
    np.testing.assert_allclose(np.diag(tables.similarity, 2), tables.similarity[0, 2])
    np.testing.assert_allclose(tables.similarity[1, 4],
                               np.cos(3 * angles[1]).mean(), atol=1e-12)
    assert position_tables({}) is None
    assert "rotated" in rotary_note("causal mask; rotary positions (RoPE, θ = 10000): …")
    assert rotary_note("causal mask; pre-LN") == ""


def test_the_card_says_what_a_llama_block_computes_and_a_course_one_gets_no_line():
    assert llama_options(TransformerConfig()) == []
    llama = TransformerConfig(positional="rope", norm="rmsnorm", gated_ffn=True,
                              activation="silu", kv_heads=2, linear_bias=False)
    text = " ".join(llama_options(llama))
    for words in ("RMSNorm", "Zhang", "RoPE", "Su et al.", "SwiGLU", "Shazeer",
                  "2 key/value heads", "Ainslie", "no biases"):
        assert words in text
    assert "nothing added" in embedding_line(llama)
