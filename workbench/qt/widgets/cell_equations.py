"""Equation cards for the inspectors, in the seeds' notation (SEEDS.md 2.3–2.5), as rich text.

LSTM follows SLP3 (9.19)–(9.26) with the biases of seed 001; GRU follows seed 001 (the garbled
002 version, erratum 1, is avoided) and states how torch's update gate differs; attention is
the scaled dot product with the causal mask M of 001:L815 (erratum 13: M is added before the
division, which changes nothing since −∞/√d_k = −∞); the positional encoding is 001:L757 with
2i in both terms (erratum 14 avoided).
"""

from __future__ import annotations

_STYLE = "font-family: 'DejaVu Serif', serif; font-size: 11pt;"

LSTM = """
<b>LSTM cell</b> (SLP3 9.19–9.26, biases as in seed 001)<br>
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
(b<sub>ih</sub> + b<sub>hh</sub>); the trace uses the model's own weights.</small>
"""

GRU = """
<b>GRU cell</b> (seed 001)<br>
z<sub>t</sub> = σ(W<sub>z</sub> · [h<sub>t−1</sub>, x<sub>t</sub>])&nbsp;&nbsp;update gate<br>
r<sub>t</sub> = σ(W<sub>r</sub> · [h<sub>t−1</sub>, x<sub>t</sub>])&nbsp;&nbsp;reset gate<br>
h̃<sub>t</sub> = tanh(W · [r<sub>t</sub> ⊙ h<sub>t−1</sub>, x<sub>t</sub>])<br>
h<sub>t</sub> = (1 − z<sub>t</sub>) ⊙ h<sub>t−1</sub> + z<sub>t</sub> ⊙ h̃<sub>t</sub><br>
<b>Convention.</b> PyTorch computes
n<sub>t</sub> = tanh(W<sub>in</sub> x<sub>t</sub> + b<sub>in</sub>
+ r<sub>t</sub> ⊙ (W<sub>hn</sub> h<sub>t−1</sub> + b<sub>hn</sub>)) and
h<sub>t</sub> = (1 − z<sub>t</sub>) ⊙ n<sub>t</sub> + z<sub>t</sub> ⊙ h<sub>t−1</sub>:
torch's z is the complement of the seeds' z<sub>t</sub> (z<sup>torch</sup> = 1 − z<sup>seed</sup>),
and r acts after the matrix product. The line below says which one this view shows.
"""

RNN = """
<b>Elman RNN</b> (SLP3 9.3–9.5)<br>
h<sub>t</sub> = g(U h<sub>t−1</sub> + W x<sub>t</sub> + b)&nbsp;&nbsp;(g = tanh or ReLU)<br>
y<sub>t</sub> = softmax(V h<sub>t</sub>)
"""

ATTENTION = """
<b>Masked scaled dot-product attention</b> (seed 000; SLP3 9.34; seed 001:L815)<br>
Q = X W<sup>Q</sup>, K = X W<sup>K</sup>, V = X W<sup>V</sup><br>
α = softmax((Q K<sup>T</sup> + M) / √d<sub>k</sub>),
&nbsp;M<sub>ij</sub> = −∞ for j &gt; i, else 0<br>
head<sub>i</sub> = α V; &nbsp;
MultiHead(X) = (head<sub>1</sub> ⊕ … ⊕ head<sub>h</sub>) W<sup>O</sup><br>
Row i of a heatmap is query token i; its cells are α<sub>ij</sub> over keys j ≤ i (hatched: masked).
"""

POSITIONAL = """
<b>Sinusoidal positional encoding</b> (seed 001:L757)<br>
PE<sub>(pos, 2i)</sub> = sin(pos / 10000<sup>2i/d<sub>model</sub></sup>), &nbsp;
PE<sub>(pos, 2i+1)</sub> = cos(pos / 10000<sup>2i/d<sub>model</sub></sup>)<br>
added to the token embeddings before the first block.
"""

GRADIENT = """
<b>Gradient through time</b> (BPTT)<br>
For the loss of the probe's last prediction, L<sub>T</sub> = −log ŷ<sub>T</sub>[x<sub>T+1</sub>],
the curve is ‖∂L<sub>T</sub>/∂h<sub>t</sub>‖ against t. It reaches h<sub>t</sub> only through the
chain ∂h<sub>T</sub>/∂h<sub>T−1</sub> ⋯ ∂h<sub>t+1</sub>/∂h<sub>t</sub>; in an Elman RNN each
factor carries U<sup>T</sup> and g′, so the norm shrinks (vanishing) or grows (exploding)
geometrically going back; the LSTM's additive cell path
c<sub>t</sub> = f<sub>t</sub> ⊙ c<sub>t−1</sub> + … lets it survive longer.
"""

CARDS = {"lstm": LSTM, "gru": GRU, "rnn": RNN, "attention": ATTENTION,
         "positional": POSITIONAL, "gradient": GRADIENT}


def card_html(kind: str, note: str = "") -> str:
    """The card for a layer kind ("lstm", "gru", "rnn", "attention", ...) with an optional note."""
    body = CARDS.get(kind, "")
    extra = f"<br><i>{note}</i>" if note else ""
    return f"<div style=\"{_STYLE}\">{body}{extra}</div>"
