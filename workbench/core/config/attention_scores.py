"""The attention scores of the RNN encoder-decoder, in one table (issue 32, item 3).

The form's choices and help (config/seq2seq.py), the model's plain-text equation in its trace
(models/seq2seq_rnn.py), the check of a score's name (models/attention_scores.py) and the
equation card beside the Alignment matrix (qt/widgets/seq2seq_cards.py) all read this table.
Adding a score is an entry here and its arithmetic in models/attention_scores.py; a test
checks that the two agree.

Sources: dot and general are Luong, Pham & Manning 2015; the scaled dot product is the 1/√d
scaling of Vaswani et al. 2017 applied to these states; additive is Bahdanau, Cho & Bengio 2014
(the course's "fc(s, h)", seed 001; Luong's "concat").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScoreKind:
    """One score e_ij of decoder state s_i against encoder state h_j."""

    equation: str  # plain text: the form's help and the model's trace
    source: str  # plain text, for the form's help
    title_html: str  # the card's title, with its source
    equation_html: str  # the card's equation


SCORES: dict[str, ScoreKind] = {
    "none": ScoreKind(
        "no attention: the decoder sees the source only through s_0 (the bottleneck)",
        "the plain encoder-decoder of Sutskever et al. 2014 and Cho et al. 2014",
        "No attention: the plain encoder-decoder (Sutskever et al. 2014; Cho et al. 2014)",
        "The decoder reads the source only through s<sub>0</sub>, the bridged final "
        "encoder states: the whole input squeezed into one fixed-length vector, the "
        "bottleneck that made long inputs suffer and attention necessary."),
    "dot": ScoreKind(
        "dot (Luong): e_ij = s_i^T h_j",
        "Luong et al. 2015",
        "Dot score (Luong, Pham &amp; Manning 2015)",
        "e<sub>ij</sub> = s<sub>i</sub><sup>T</sup> h<sub>j</sub>"),
    "scaled": ScoreKind(
        "scaled dot (000): e_ij = s_i^T h_j / √d_h",
        "the scaling of Vaswani et al. 2017",
        "Scaled dot score (the 1/√d scaling of Vaswani et al. 2017)",
        "e<sub>ij</sub> = s<sub>i</sub><sup>T</sup> h<sub>j</sub> / √d<sub>h</sub>, "
        "d<sub>h</sub> the width of h<sub>j</sub>"),
    "general": ScoreKind(
        "general (Luong): e_ij = s_i^T W_a h_j",
        "Luong et al. 2015",
        "General score (Luong, Pham &amp; Manning 2015)",
        "e<sub>ij</sub> = s<sub>i</sub><sup>T</sup> W<sub>a</sub> h<sub>j</sub>"),
    "additive": ScoreKind(
        "additive (001's fc, Bahdanau): e_ij = v_a^T tanh(W_a s_i + U_a h_j)",
        "the small 'fc' network of Bahdanau et al. 2014, Luong's 'concat'",
        "Additive score (Bahdanau, Cho &amp; Bengio 2014)",
        "e<sub>ij</sub> = fc(s, h<sub>j</sub>) = v<sub>a</sub><sup>T</sup> "
        "tanh(W<sub>a</sub> s<sub>i</sub> + U<sub>a</sub> h<sub>j</sub>) &nbsp;a small "
        "network with one hidden layer (the course's “fc”; Luong's “concat”)"),
}

# the scores a decoder computes ("none" has no score: the model has no attention module)
COMPUTED = tuple(name for name in SCORES if name != "none")


def form_help() -> str:
    """The Attention field's help in the form: every score, its equation and source."""
    parts = [f"{name}: {kind.equation.split(': ', 1)[-1]} ({kind.source})."
             for name, kind in SCORES.items()]
    return "Score e_ij of decoder state s_i against encoder state h_j. " + " ".join(parts)
