"""The LSTM cell (SLP3 9.19-9.26), in torch's gate order i, f, g, o:
f_t = σ(U_f h_{t-1} + W_f x_t + b_f), i_t = σ(...), g_t = tanh(...), o_t = σ(...),
c_t = f_t ⊙ c_{t-1} + i_t ⊙ g_t, h_t = o_t ⊙ tanh(c_t)."""

from __future__ import annotations

from workbench.core.recurrent_cells.kind import CellKind, linear, source_line


def step(xp, h, c, w_hh, b_hh, nonlinearity):
    i, f, g, o = (xp + linear(h, w_hh, b_hh)).chunk(4, dim=-1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    return h, c, {"i": i, "f": f, "g": g, "o": o, "c": c, "h": h}


CELL = CellKind(
    name="lstm",
    title="LSTM",
    gates=("i", "f", "g", "o"),
    gate_words={"i": "input gate", "f": "forget gate", "g": "candidate", "o": "output gate",
                "c": "cell state", "h": "state"},
    squash={"i": "σ", "f": "σ", "g": "tanh", "o": "σ"},
    fused="LSTM",
    convention="torch gate order i, f, g, o; two biases per gate (b_ih + b_hh)",
    card="""
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
""" + source_line("Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.19–9.26 (biases added as in "
                  "C. Olah, “Understanding LSTM Networks”, 2015); Hochreiter &amp; "
                  "Schmidhuber 1997."),
    worked_source="Jurafsky & Martin, SLP3 ch. 9, eqs. 9.19–9.26; PyTorch documentation of "
                  "nn.LSTM",
    step=step,
    cell_state=True,
    values_per_unit=6,
)
