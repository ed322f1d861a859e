"""The LSTM with peephole connections (the course's R6, seed 001 L361-373; Gers & Schmidhuber
2000): the gates also look at the cell state,

  i_t = σ(V_i c_{t-1} + U_i h_{t-1} + W_i x_t + b_i)    f_t = σ(V_f c_{t-1} + U_f h_{t-1} + ...)
  g_t = tanh(U_g h_{t-1} + W_g x_t + b_g)               c_t = f_t ⊙ c_{t-1} + i_t ⊙ g_t
  o_t = σ(V_o c_t + U_o h_{t-1} + W_o x_t + b_o)        h_t = o_t ⊙ tanh(c_t)

The course writes W_f · [C_{t-1}, h_{t-1}, x_t]: a full matrix on the cell state, as here (Gers
& Schmidhuber's peepholes are diagonal, one weight a unit). torch has no such module, so it
trains step by step through these equations (slower than a fused LSTM)."""

from __future__ import annotations

from workbench.core.recurrent_cells import lstm
from workbench.core.recurrent_cells.kind import CellKind, linear, source_line


def step(xp, h, c, w_hh, b_hh, nonlinearity, w_ch):
    a_i, a_f, a_g, a_o = (xp + linear(h, w_hh, b_hh)).chunk(4, dim=-1)
    v_i, v_f, v_o = w_ch.chunk(3, dim=0)  # (H, H) each
    i = (a_i + linear(c, v_i, None)).sigmoid()
    f = (a_f + linear(c, v_f, None)).sigmoid()
    g = a_g.tanh()
    c = f * c + i * g
    o = (a_o + linear(c, v_o, None)).sigmoid()
    h = o * c.tanh()
    return h, c, {"i": i, "f": f, "g": g, "o": o, "c": c, "h": h}


CELL = CellKind(
    name="peephole_lstm",
    title="Peephole LSTM",
    gates=lstm.CELL.gates,  # the LSTM's gates, named and squashed as the LSTM's
    gate_words=lstm.CELL.gate_words,
    squash=lstm.CELL.squash,
    fused="",
    convention="gate order i, f, g, o; two biases per gate (b_ih + b_hh); peepholes V_i, V_f "
               "read c_{t-1} and V_o reads c_t (weight_ch stacks V_i, V_f, V_o)",
    card="""
<b>Peephole LSTM cell</b> (the gates look at the cell state)<br>
f<sub>t</sub> = σ(V<sub>f</sub> c<sub>t−1</sub> + U<sub>f</sub> h<sub>t−1</sub>
+ W<sub>f</sub> x<sub>t</sub> + b<sub>f</sub>)&nbsp;&nbsp;forget gate<br>
i<sub>t</sub> = σ(V<sub>i</sub> c<sub>t−1</sub> + U<sub>i</sub> h<sub>t−1</sub>
+ W<sub>i</sub> x<sub>t</sub> + b<sub>i</sub>)&nbsp;&nbsp;input gate<br>
g<sub>t</sub> = tanh(U<sub>g</sub> h<sub>t−1</sub> + W<sub>g</sub> x<sub>t</sub>
+ b<sub>g</sub>)&nbsp;&nbsp;candidate<br>
c<sub>t</sub> = f<sub>t</sub> ⊙ c<sub>t−1</sub> + i<sub>t</sub> ⊙ g<sub>t</sub><br>
o<sub>t</sub> = σ(V<sub>o</sub> c<sub>t</sub> + U<sub>o</sub> h<sub>t−1</sub>
+ W<sub>o</sub> x<sub>t</sub> + b<sub>o</sub>)&nbsp;&nbsp;output gate: it reads the new
c<sub>t</sub><br>
h<sub>t</sub> = o<sub>t</sub> ⊙ tanh(c<sub>t</sub>)<br>
<small>The course writes W<sub>f</sub> · [C<sub>t−1</sub>, h<sub>t−1</sub>, x<sub>t</sub>]:
one matrix over the cell state, the state and the input, split here as V, U and W. Gers &amp;
Schmidhuber's peepholes are diagonal (one weight a unit). No fused torch module computes it:
it trains step by step.</small>
""" + source_line("C. Olah, “Understanding LSTM Networks” (2015), the peephole variant; Gers "
                  "&amp; Schmidhuber 2000, “Recurrent nets that time and count”."),
    worked_source="Gers & Schmidhuber 2000; C. Olah, “Understanding LSTM Networks” (2015), "
                  "the peephole variant (a full matrix V on the cell state, as the course "
                  "writes it)",
    step=step,
    cell_state=True,
    values_per_unit=6,
    peepholes=("i", "f", "o"),
    tasks=("language_model", "forecast"),  # batches of one length: no padding to pack
)
