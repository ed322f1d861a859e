"""The Architecture panel's equation card: the language-model frame around the cell's equations.

Cell cards come from `cell_equations` (shared with the inspectors); this adds the frame of
SLP3 (9.6)-(9.8) and the transformer block of seed 000 (T12) in post-LN (as the seeds write
it) or pre-LN form. The layer kinds are read from the summary's module types.
"""

from __future__ import annotations

from workbench.core.config.summary import ModelSummary
from workbench.qt.widgets.cell_equations import CARDS, card_html

RECURRENT_FRAME = """
<b>Recurrent language model</b> (SLP3 9.6–9.8)<br>
e<sub>t</sub> = E x<sub>t</sub> &nbsp;(embedding lookup)<br>
h<sub>t</sub><sup>[l]</sup> = cell(h<sub>t−1</sub><sup>[l]</sup>, h<sub>t</sub><sup>[l−1]</sup>),
&nbsp;h<sub>t</sub><sup>[0]</sup> = e<sub>t</sub> &nbsp;(stacked layers)<br>
ŷ<sub>t</sub> = softmax(V h<sub>t</sub> + b) &nbsp;(weight tying: V = E)<br>
"""

TRANSFORMER_POST = """
<b>Transformer decoder block</b>, post-LN (seed 000 T12; SLP3 9.37–9.38)<br>
X<sub>0</sub> = E[x] + P &nbsp;(token embedding plus positions)<br>
X := LayerNorm(X + MaskedMultiHead(X W<sub>Q</sub>, X W<sub>K</sub>, X W<sub>V</sub>))<br>
X := LayerNorm(X + max{0, X W<sub>1</sub> + b<sub>1</sub>} W<sub>2</sub> + b<sub>2</sub>)<br>
proba = softmax(X W<sub>O</sub>)<br>
"""

TRANSFORMER_PRE = """
<b>Transformer decoder block</b>, pre-LN (not in the seeds; GPT-2's placement)<br>
X<sub>0</sub> = E[x] + P<br>
X := X + MaskedMultiHead(LayerNorm(X))<br>
X := X + FFN(LayerNorm(X)), &nbsp;FFN(z) = max{0, z W<sub>1</sub> + b<sub>1</sub>} W<sub>2</sub>
+ b<sub>2</sub><br>
proba = softmax(LayerNorm(X) W<sub>O</sub>)<br>
"""

LAYER_NORM = (
    "LayerNorm(x) = γ (x − μ) / σ + β with the population σ (SLP3; torch adds ε = 10<sup>−5</sup>"
    " under the root)."
)


def architecture_card(summary: ModelSummary, norm_placement: str = "post",
                      positional: str = "sinusoidal") -> str:
    """Rich text for the card of the summarized model."""
    kinds = [row.kind.lower() for row in summary.rows]
    cells = [k for k in dict.fromkeys(kinds) if k in CARDS]
    if "block" in kinds:
        frame = TRANSFORMER_PRE if norm_placement == "pre" else TRANSFORMER_POST
        parts = [card_html("attention"), f"<div>{frame}<small>{LAYER_NORM}</small></div>"]
        if positional == "sinusoidal":
            parts.append(card_html("positional"))
        else:
            parts.append("<div><b>Learned positions</b>: P is a trained table of one row per "
                         "position up to the context length (SLP3 9.7.3).</div>")
        return "<hr>".join(parts)
    bidirectional = any("bidirectional" in row.note for row in summary.rows)
    note = ("Bidirectional: h<sub>t</sub> = [h<sub>t</sub><sup>f</sup>; h<sub>t</sub><sup>b</sup>]"
            " (SLP3 9.15–9.17)." if bidirectional else "")
    return "<hr>".join([f"<div>{RECURRENT_FRAME}</div>",
                        *(card_html(cell, note) for cell in cells)])
