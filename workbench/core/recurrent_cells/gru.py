"""The GRU cell in torch's form: r_t = σ(W_r x_t + U_r h_{t-1} + b_r), z_t = σ(...),
n_t = tanh(W_n x_t + b_in + r_t ⊙ (U_n h_{t-1} + b_hn)), h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t-1}.
Seed 001 writes h_t = (1 − z_t) h_{t-1} + z_t h̃_t: its z_t is torch's 1 − z_t, and it puts r_t
before the matrix product (r_t ⊙ h_{t-1}); torch applies r_t after it."""

from __future__ import annotations

from workbench.core.recurrent_cells.kind import CellKind, linear, source_line


def step(xp, h, c, w_hh, b_hh, nonlinearity):
    x_r, x_z, x_n = xp.chunk(3, dim=-1)
    h_r, h_z, h_n = linear(h, w_hh, b_hh).chunk(3, dim=-1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    h = (1 - z) * n + z * h
    return h, c, {"r": r, "z": z, "n": n, "h": h}


CELL = CellKind(
    name="gru",
    title="GRU",
    gates=("r", "z", "n"),
    gate_words={"r": "reset gate", "z": "update gate (PyTorch's)", "n": "candidate",
                "h": "state"},
    squash={"r": "σ", "z": "σ", "n": "tanh"},
    fused="GRU",
    convention="torch convention: h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t−1}; the seeds' (001) "
               "update gate is 1 − z_t, and torch applies r_t after U_n h_{t−1}",
    card="""
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
""" + source_line("the form above: Chung et al. 2014 and C. Olah, “Understanding LSTM "
                  "Networks” (2015); Cho et al. 2014, eq. 7 (the complement z); PyTorch "
                  "documentation of torch.nn.GRU."),
    worked_source="Cho et al. 2014; PyTorch documentation of nn.GRU (its z is 1 − the "
                  "course's z_t)",
    step=step,
    values_per_unit=5,
    reset_after="n",
)
