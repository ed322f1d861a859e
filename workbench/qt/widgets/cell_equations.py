"""Equation cards for the inspectors, as rich text, each citing a public source a student can
look up (a textbook chapter and equation, or the paper).

The notation follows Jurafsky & Martin, *Speech and Language Processing* (3rd ed. draft,
"SLP3"), ch. 9, where it has the equation, with every bias the layers really have. The GRU card
gives Cho et al.'s form as Olah writes it and says how PyTorch's update gate differs (the trace
uses PyTorch's). The attention card adds the mask M before the division by √d_k, which is the
same since −∞/√d_k = −∞; the positional card writes 2i in both terms (some course notes slip
to 2j in the cosine).
"""

from __future__ import annotations

from workbench.core.recurrent_cells import CELLS
from workbench.core.recurrent_cells.kind import source_line

_STYLE = "font-family: 'DejaVu Serif', serif; font-size: large;"


source = source_line  # the grey line under a card that names its source (the cells' own)


POSITIONAL = """
<b>Sinusoidal positional encoding</b><br>
PE<sub>(pos, 2i)</sub> = sin(pos / 10000<sup>2i/d<sub>model</sub></sup>), &nbsp;
PE<sub>(pos, 2i+1)</sub> = cos(pos / 10000<sup>2i/d<sub>model</sub></sup>)<br>
added to the token embeddings before the first block.
""" + source("Vaswani et al. 2017, “Attention Is All You Need”, sec. 3.5; "
             "Jurafsky &amp; Martin, SLP3 ch. 9, sec. 9.7.")

GRADIENT = """
<b>Gradient through time</b> (backpropagation through time)<br>
For the loss of the probe's last prediction, L<sub>T</sub> = −log ŷ<sub>T</sub>[x<sub>T+1</sub>],
the curve is ‖∂L<sub>T</sub>/∂h<sub>t</sub>‖ against t. It reaches h<sub>t</sub> only through the
chain ∂h<sub>T</sub>/∂h<sub>T−1</sub> ⋯ ∂h<sub>t+1</sub>/∂h<sub>t</sub>; in an Elman RNN each
factor carries U<sup>T</sup> and g′, so the norm shrinks (vanishing) or grows (exploding)
geometrically going back; the LSTM's additive cell path
c<sub>t</sub> = f<sub>t</sub> ⊙ c<sub>t−1</sub> + … lets it survive longer.
""" + source("Jurafsky &amp; Martin, SLP3 ch. 9, sec. 9.2.2 (BPTT) and sec. 9.6; "
             "Bengio, Simard &amp; Frasconi 1994; Pascanu, Mikolov &amp; Bengio 2013.")


GRADIENT_STREAM = """
<b>Gradient through the residual stream</b> (a transformer decoder)<br>
For the same loss of the probe's last prediction, L<sub>T</sub> =
−log ŷ<sub>T</sub>[w<sub>T+1</sub>] (w: the probe's tokens), each curve is
‖∂L<sub>T</sub>/∂x<sub>t</sub><sup>(l)</sup>‖ against t, x<sup>(l)</sup> the residual
stream entering block l (x<sup>(0)</sup>: the embeddings with their positions).
There is no product of Jacobians through time: attention reads every earlier position
directly, so x<sub>t</sub><sup>(l)</sup> is one attention hop from position T in every block,
and the residual connection x<sup>(l+1)</sup> = x<sup>(l)</sup> + Attn + FFN (pre-LN;
post-LN normalises the sum) carries the gradient from block to block through its identity
term. Early positions are not reached
geometrically less: how much they count is what attention gives them. The stream after the
last block is not drawn: the head reads each position alone, so it reaches L<sub>T</sub> only
at T.
""" + source("Vaswani et al. 2017, sec. 4 (path length between positions: O(1) for "
             "self-attention, O(n) for recurrence); He et al. 2016 (residual connections); "
             "Jurafsky &amp; Martin, SLP3 ch. 9, sec. 9.7.")


def attention_card(causal: bool = True, scaled: bool = True, encoder: bool = False) -> str:
    """The masked scaled dot-product attention card; an ablated model's card says what it
    computes instead (no mask M, no division by √d_k). An encoder (BERT-style) reads both
    ways by design: its missing mask is no ablation."""
    divide = " / √d<sub>k</sub>" if scaled else ""
    mask = (" + M" if causal else "")
    ablated = [w for w, off in (("no causal mask", not causal and not encoder),
                                ("no √d_k scaling", not scaled)) if off]
    title = ("Bidirectional scaled dot-product attention (an encoder: every token reads every "
             "other)" if encoder and not causal else "Masked scaled dot-product attention")
    if ablated:
        title = ("Bidirectional self-attention" if encoder and not causal else
                 "Self-attention") + " (ablated: " + ", ".join(ablated) + ")"
    mask_line = ("M<sub>ij</sub> = −∞ for j &gt; i, else 0 (the causal mask)<br>" if causal else
                 "<i>No mask: every position also reads the tokens after it.</i><br>")
    scale_note = "" if scaled else ("<i>No division by √d<sub>k</sub>: scores grow with "
                                    "d<sub>k</sub> and the softmax saturates.</i><br>")
    cell_note = ("Row i of a heatmap is query token i; its cells are α<sub>ij</sub> over keys "
                 "j ≤ i (hatched: masked)." if causal else
                 "Row i of a heatmap is query token i; its cells are α<sub>ij</sub> over all keys.")
    return f"""
<b>{title}</b><br>
Q = X W<sup>Q</sup> + b<sup>Q</sup>, &nbsp;K = X W<sup>K</sup> + b<sup>K</sup>,
&nbsp;V = X W<sup>V</sup> + b<sup>V</sup> &nbsp;(one slice of each per head)<br>
α = softmax((Q K<sup>T</sup>{mask}){divide}) &nbsp;row by row<br>
{mask_line}{scale_note}head<sub>i</sub> = α V; &nbsp;
MultiHead(X) = (head<sub>1</sub> ⊕ … ⊕ head<sub>h</sub>) W<sup>O</sup> + b<sup>O</sup><br>
{cell_note} Click a cell for its computation with this model's numbers.
""" + source("Vaswani et al. 2017, eq. 1 and sec. 3.2.2; Jurafsky &amp; Martin, SLP3 ch. 9, "
             "eqs. 9.34, 9.43–9.45 and Fig. 9.17 (the mask).")


# each recurrent cell's card is in its file of core/recurrent_cells
CARDS = {**{name: cell.card for name, cell in CELLS.items()}, "attention": attention_card(),
         "positional": POSITIONAL, "gradient": GRADIENT,
         "gradient_stream": GRADIENT_STREAM}


def wrap(body: str) -> str:
    return f"<div style=\"{_STYLE}\">{body}</div>"


def card_html(kind: str, note: str = "") -> str:
    """The card for a layer kind ("lstm", "gru", "rnn", "attention", ...) with an optional note."""
    body = CARDS.get(kind, "")
    extra = f"<br><i>{note}</i>" if note else ""
    return wrap(f"{body}{extra}")
