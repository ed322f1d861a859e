"""One step of an LSTM, GRU or Elman cell for one unit, from the layer's own weights: the
click on a cell of the Gates heatmap.

Weights as PyTorch keeps them (W = weight_ih, U = weight_hh, two biases b_ih + b_hh; gate
blocks in the order i, f, g, o for the LSTM and r, z, n for the GRU). For unit u at step t:

  LSTM  a = (W_a x_t)_u + (U_a h_{t−1})_u + b_a,u  for a in i, f, g, o;  i, f, o = σ(a),
        g = tanh(a);  c_t = f c_{t−1} + i g;  h_t = o tanh(c_t)            (SLP3 9.19–9.26)
  GRU   r, z = σ(W x + b_i + U h + b_h);  n = tanh(W_n x + b_in + r (U_n h + b_hn));
        h_t = (1 − z) n + z h_{t−1}  (PyTorch's z; the course's z_t is 1 − z)  (Cho et al.)
  RNN   h_t = g(W x_t + U h_{t−1} + b)                                       (SLP3 9.3)

Recomputed in numpy from the layer's input and previous state in the trace; tests check it
equals the trace's gates and states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from workbench.core.recurrent_cells import CELLS
from workbench.core.worked.records import (
    Line,
    WorkedComputation,
    num,
    plus,
    products,
    sigmoid,
    times,
    vec,
)


def step_computation(kind: str, layer_name: str, values: Mapping[str, np.ndarray],
                     layer_input: np.ndarray, weights: Mapping[str, np.ndarray], t: int,
                     unit: int, tokens: Sequence[str], nonlinearity: str = "tanh"
                     ) -> WorkedComputation:
    """Unit `unit` of layer `layer_name` ("layer 0", "layer 1 reverse") at step t.

    `values`: that layer's trace values; `layer_input` (T, E): what the layer reads (the
    embeddings for layer 0, the layer below's h otherwise); `weights`: the snapshot's."""
    reverse = layer_name.endswith("reverse")
    index = int(layer_name.split()[1])
    suffix = f"_l{index}" + ("_reverse" if reverse else "")
    w_ih, w_hh, b_ih, b_hh = (np.asarray(weights[f"rnn.{name}{suffix}"], np.float64)
                              for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
    h_all = np.asarray(values["h"], dtype=np.float64)
    steps, hidden = h_all.shape
    if not (0 <= t < steps and 0 <= unit < hidden):
        raise ValueError(f"step {t}, unit {unit} is outside the {steps} steps × {hidden} units")
    before = t + 1 if reverse else t - 1  # the previous step in this direction's order
    first = before < 0 or before >= steps
    h_prev = np.zeros(hidden) if first else h_all[before]
    x = np.asarray(layer_input, dtype=np.float64)[t]
    token = repr(tokens[t].replace("\n", "↵")) if t < len(tokens) else str(t)
    lines = [Line("input", f"x_{t} (token {token})", vec(x), x),
             Line("previous state", f"h_{before} " + ("(zeros: first step)" if first else ""),
                  vec(h_prev), h_prev)]
    cell = CELLS[kind]
    gates = cell.gates
    w_ch = (np.asarray(weights[f"rnn.weight_ch{suffix}"], np.float64) if cell.peepholes
            else None)  # the peepholes V_i, V_f, V_o stacked
    pre, out = {}, {}
    for block, gate in enumerate(gates):
        row = block * hidden + unit
        from_x, from_h = float(w_ih[row] @ x), float(w_hh[row] @ h_prev)
        if gate == cell.reset_after:
            r = out["r"]
            a = from_x + b_ih[row] + r * (from_h + b_hh[row])
            formula = f"n = tanh(W_n x_{t} + b_in + r ⊙ (U_n h_{before} + b_hn))"
            working = (f"tanh({plus(from_x, b_ih[row])} + {num(r)}×("
                       f"{plus(from_h, b_hh[row])}))")
        elif gate in cell.peepholes:  # V c: the previous cell state, the new one for o
            reads = t if gate == "o" else before
            c_seen = (np.zeros(hidden) if reads != t and first
                      else np.asarray(values["c"][reads], dtype=np.float64))
            v_row = w_ch[cell.peepholes.index(gate) * hidden + unit]
            from_c = float(v_row @ c_seen)
            a = from_x + from_h + from_c + b_ih[row] + b_hh[row]
            formula = (f"a_{gate} = W_{gate} x_{t} + U_{gate} h_{before} + V_{gate} c_{reads} "
                       f"+ b_{gate}")
            working = (f"{plus(from_x, from_h)} + {_p(from_c)} + "
                       f"({plus(b_ih[row], b_hh[row])}) = {num(a)}")
        else:
            a = from_x + from_h + b_ih[row] + b_hh[row]
            formula = f"a_{gate} = W_{gate} x_{t} + U_{gate} h_{before} + b_{gate}"
            working = (f"{plus(from_x, from_h)} + ({plus(b_ih[row], b_hh[row])}) = {num(a)}")
        pre[gate] = a
        name = cell.squash_name(gate, nonlinearity)
        out[gate] = float(SQUASH[name](a))
        if gate == cell.reset_after:
            lines.append(Line(f"{cell.gate_words[gate]} (unit {unit})", formula,
                              f"{working} = tanh({num(a)}) = {num(out[gate])}", out[gate]))
            continue
        lines.append(Line(f"{cell.gate_words[gate]}: pre-activation (unit {unit})", formula,
                          f"(W_{gate} x_{t})[{unit}] = {products(w_ih[row], x)}; {working}", a))
        lines.append(Line(f"{cell.gate_words[gate]} (unit {unit})", f"{gate} = {name}(a_{gate})",
                          f"{name}({num(a)}) = {num(out[gate])}", out[gate]))
    result = {**out}
    if cell.cell_state:  # the LSTM's update, peepholes or not
        c_prev = 0.0 if first else float(values["c"][before, unit])
        c = out["f"] * c_prev + out["i"] * out["g"]
        h = out["o"] * np.tanh(c)
        lines += [Line("cell update", f"c_{t} = f ⊙ c_{before} + i ⊙ g",
                       f"{times(out['f'], c_prev)} + {times(out['i'], out['g'])} = {num(c)}",
                       c),
                  Line("new state", f"h_{t} = o ⊙ tanh(c_{t})",
                       f"{num(out['o'])}×tanh({num(c)}) = {num(h)}", h)]
        result.update(c=c, h=h)
    elif kind == "gru":
        z, n, h_before = out["z"], out["n"], float(h_prev[unit])
        h = (1 - z) * n + z * h_before
        lines += [Line("new state", f"h_{t} = (1 − z) ⊙ n + z ⊙ h_{before}",
                       f"(1 − {num(z)})×{_p(n)} + {times(z, h_before)} = {num(h)}", h),
                  Line("the course's update gate", "z_t = 1 − z (Cho et al., Olah)",
                       f"1 − {num(z)} = {num(1 - z)}: h_t = (1 − z_t) h_t−1 + z_t h̃_t", 1 - z)]
        result.update(h=h, z_course=1 - z)
    title = (f"{cell.title} {layer_name}, step {t} "
             f"({token}), unit {unit}")
    listed = ", ".join(f"{g} {num(a)}" for g, a in pre.items())
    return WorkedComputation(title, tuple(lines), cell.worked_source, values=result,
                             note=f"pre-activations: {listed}")


def _p(value: float) -> str:
    text = num(value)
    return f"({text})" if text.startswith("−") else text


SQUASH = {"σ": sigmoid, "tanh": np.tanh, "ReLU": lambda v: np.maximum(v, 0.0)}


def layer_input(trace, layer_name: str) -> np.ndarray:
    """(T, E) what a recurrent layer of `trace` reads: the embeddings for layer 0, the layer
    below's h otherwise (both directions side by side for a bidirectional stack)."""
    index = int(layer_name.split()[1])
    if index == 0:
        return np.asarray(trace.embeddings)
    below = [layer.values["h"] for layer in trace.layers
             if layer.name in (f"layer {index - 1}", f"layer {index - 1} reverse")]
    return np.concatenate([np.asarray(b) for b in below], axis=1)
