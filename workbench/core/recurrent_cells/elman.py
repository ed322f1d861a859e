"""The Elman RNN cell: h_t = g(U h_{t-1} + W x_t + b), g = tanh or ReLU (SLP3 9.3)."""

from __future__ import annotations

from workbench.core.recurrent_cells.kind import CellKind, linear, source_line


def step(xp, h, c, w_hh, b_hh, nonlinearity):
    pre = xp + linear(h, w_hh, b_hh)
    h = pre.tanh() if nonlinearity == "tanh" else pre.relu()
    return h, c, {"h": h}


CELL = CellKind(
    name="rnn",
    title="Elman RNN",
    gates=("h",),
    gate_words={"h": "state"},
    squash={},
    fused="RNN",
    convention="h_t = g(U h_{t-1} + W x_t + b), torch's two biases b = b_ih + b_hh",
    card="""
<b>Elman RNN</b><br>
h<sub>t</sub> = g(U h<sub>t−1</sub> + W x<sub>t</sub> + b)&nbsp;&nbsp;(g = tanh or ReLU)<br>
y<sub>t</sub> = softmax(V h<sub>t</sub> + b<sub>y</sub>)
""" + source_line("Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.3–9.5; Elman 1990."),
    worked_source="Jurafsky & Martin, SLP3 ch. 9, eq. 9.3; Elman 1990",
    step=step,
    values_per_unit=2,
)
