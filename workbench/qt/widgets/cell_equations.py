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

_STYLE = "font-family: 'DejaVu Serif', serif; font-size: large;"


def source(text: str) -> str:
    """The grey line under a card that names where its equations come from."""
    return f"<br><span style='color:#555'><small>Source: {text}</small></span>"


LSTM = """
<b>LSTM cell</b><br>
f<sub>t</sub> = σ(U<sub>f</sub> h<sub>t−1</sub> + W<sub>f</sub> x<sub>t</sub> + b<sub>f</sub>)
&nbsp;&nbsp;forget (“keep”) gate<br>
i<sub>t</sub> = σ(U<sub>i</sub> h<sub>t−1</sub> + W<sub>i</sub> x<sub>t</sub> + b<sub>i</sub>)
&nbsp;&nbsp;input (“write”, “add”) gate<br>
g<sub>t</sub> = tanh(U<sub>g</sub> h<sub>t−1</sub> + W<sub>g</sub> x<sub>t</sub> + b<sub>g</sub>)
&nbsp;&nbsp;candidate C̃<sub>t</sub><br>
c<sub>t</sub> = f<sub>t</sub> ⊙ c<sub>t−1</sub> + i<sub>t</sub> ⊙ g<sub>t</sub>
&nbsp;&nbsp;cell state (the “conveyor belt”)<br>
o<sub>t</sub> = σ(U<sub>o</sub> h<sub>t−1</sub> + W<sub>o</sub> x<sub>t</sub> + b<sub>o</sub>)
&nbsp;&nbsp;output (“read”) gate<br>
h<sub>t</sub> = o<sub>t</sub> ⊙ tanh(c<sub>t</sub>)<br>
<small>PyTorch stores the gate blocks in the order i, f, g, o and has two bias vectors
(b = b<sub>ih</sub> + b<sub>hh</sub>); the trace uses the model's own weights.</small>
""" + source("Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.19–9.26 (biases added as in "
             "C. Olah, “Understanding LSTM Networks”, 2015); Hochreiter &amp; Schmidhuber 1997.")

GRU = """
<b>GRU cell</b><br>
z<sub>t</sub> = σ(W<sub>z</sub> · [h<sub>t−1</sub>, x<sub>t</sub>] + b<sub>z</sub>)
&nbsp;&nbsp;update gate<br>
r<sub>t</sub> = σ(W<sub>r</sub> · [h<sub>t−1</sub>, x<sub>t</sub>] + b<sub>r</sub>)
&nbsp;&nbsp;reset gate<br>
h̃<sub>t</sub> = tanh(W · [r<sub>t</sub> ⊙ h<sub>t−1</sub>, x<sub>t</sub>] + b)<br>
h<sub>t</sub> = (1 − z<sub>t</sub>) ⊙ h<sub>t−1</sub> + z<sub>t</sub> ⊙ h̃<sub>t</sub><br>
<b>Convention.</b> PyTorch computes
n<sub>t</sub> = tanh(W<sub>in</sub> x<sub>t</sub> + b<sub>in</sub>
+ r<sub>t</sub> ⊙ (W<sub>hn</sub> h<sub>t−1</sub> + b<sub>hn</sub>)) and
h<sub>t</sub> = (1 − z<sub>t</sub>) ⊙ n<sub>t</sub> + z<sub>t</sub> ⊙ h<sub>t−1</sub>:
PyTorch's z is the complement of the z<sub>t</sub> above
(z<sup>PyTorch</sup> = 1 − z<sub>t</sub>), and r acts after the matrix product. The gate list
offers both; the heatmap's title says which one it shows.
PyTorch's form, z<sub>t</sub> ⊙ h<sub>t−1</sub> + (1 − z<sub>t</sub>) ⊙ h̃<sub>t</sub>, is
Cho et al.'s own (2014, eq. 7).
""" + source("the form above: Chung et al. 2014 and C. Olah, “Understanding LSTM Networks” "
             "(2015); Cho et al. 2014, eq. 7 (the complement z); PyTorch documentation of "
             "torch.nn.GRU.")

RNN = """
<b>Elman RNN</b><br>
h<sub>t</sub> = g(U h<sub>t−1</sub> + W x<sub>t</sub> + b)&nbsp;&nbsp;(g = tanh or ReLU)<br>
y<sub>t</sub> = softmax(V h<sub>t</sub> + b<sub>y</sub>)
""" + source("Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.3–9.5; Elman 1990.")

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


CARDS = {"lstm": LSTM, "gru": GRU, "rnn": RNN, "attention": attention_card(),
         "positional": POSITIONAL, "gradient": GRADIENT}


def wrap(body: str) -> str:
    return f"<div style=\"{_STYLE}\">{body}</div>"


def card_html(kind: str, note: str = "") -> str:
    """The card for a layer kind ("lstm", "gru", "rnn", "attention", ...) with an optional note."""
    body = CARDS.get(kind, "")
    extra = f"<br><i>{note}</i>" if note else ""
    return wrap(f"{body}{extra}")
