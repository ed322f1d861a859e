"""The Fill in the blank console reads BERT's sentence pairs (issue 33 item 1): "A ||| B" shows
each token's segment and the model's P(IsNext); a pair needs no [MASK]."""

from __future__ import annotations

import numpy as np
from test_encoder_views import bar_heights, controller, make, publish  # noqa: F401

from workbench.core.predictions import FillMaskPrediction
from workbench.qt.panels.fill_mask import FillMaskPanel, pair_line


def test_a_pair_shows_its_segments_and_the_next_sentence_guess(qtbot, controller):  # noqa: F811
    panel = make(qtbot, controller, FillMaskPanel)
    assert "|||" in panel.probe_bar.text.placeholderText()
    panel.probe_bar.text.setText("to be or not to [MASK] ||| that is the question")
    publish(qtbot, panel, "masked_lm")
    (single,) = bar_heights(panel.plot)
    np.testing.assert_allclose(single, [0.5, 0.3, 0.1])
    text = panel.summary.text()
    assert "[CLS]₀ to₀" in text and "[SEP]₀ that₁" in text and text.endswith(
        "[SEP]₁. Next sentence: P(IsNext) = 80%, so IsNext.")


def test_the_pair_line_says_when_a_model_has_no_next_sentence_head():
    tokens = ("[CLS]", "a", "[SEP]", "b", "[SEP]")
    answer = FillMaskPrediction("a ||| b", tokens, (), (), np.zeros((0, 3)), (0, 0, 0, 1, 1))
    assert "no next-sentence head" in pair_line(answer)
    assert pair_line(FillMaskPrediction("a", ("a",), (), (), np.zeros((0, 3)))) == ""


def test_a_words_start_shows_its_space_on_the_axis(qtbot, controller):  # noqa: F811
    """BERT's " h" (a word) and "h" (a piece inside one) are two tokens: the axis shows the
    first as "·h", as the Attention axes do, so two bars never read alike."""
    panel = make(qtbot, controller, FillMaskPanel)
    answer = FillMaskPrediction("a [MASK]", ("a", "[MASK]"), (1,), ((" h", "h", " the"),),
                                np.array([[0.5, 0.3, 0.2]]))
    panel.draw([answer])
    ticks = [text for _, text in panel.plot.getAxis("bottom")._tickLevels[0]]
    assert ticks == ["·h", "h", "·the"]
