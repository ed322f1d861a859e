"""One step at a time through a fused recurrent module's own parameters.

A transcription of the seeds' cell equations, reading the weights that `nn.RNN`, `nn.LSTM` and
`nn.GRU` hold (W = weight_ih, U = weight_hh, two bias vectors b_ih + b_hh as torch keeps them):

  Elman (SLP3 9.3):  h_t = g(U h_{t-1} + W x_t + b)
  LSTM (SLP3 9.19-9.26, torch's gate order i, f, g, o):
      f_t = σ(U_f h_{t-1} + W_f x_t + b_f)      i_t = σ(U_i h_{t-1} + W_i x_t + b_i)
      g_t = tanh(U_g h_{t-1} + W_g x_t + b_g)   o_t = σ(U_o h_{t-1} + W_o x_t + b_o)
      c_t = f_t ⊙ c_{t-1} + i_t ⊙ g_t          h_t = o_t ⊙ tanh(c_t)
  GRU (torch's form): r_t = σ(W_r x_t + U_r h_{t-1} + b_r),  z_t = σ(W_z x_t + U_z h_{t-1} + b_z),
      n_t = tanh(W_n x_t + b_in + r_t ⊙ (U_n h_{t-1} + b_hn)),
      h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t-1}.
      Seed 001 writes h_t = (1 − z_t) h_{t-1} + z_t h̃_t: its z_t is torch's 1 − z_t, and it puts
      r_t before the matrix product (r_t ⊙ h_{t-1}); torch applies r_t after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn import functional as F

# The fused module of each recurrent kind: what a model, an encoder and a decoder train with
# (cuDNN on a GPU), and whose weights `run` below reads step by step to inspect.
FUSED: dict[str, type[nn.RNNBase]] = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}

CONVENTIONS = {
    "rnn": "h_t = g(U h_{t-1} + W x_t + b), torch's two biases b = b_ih + b_hh",
    "lstm": "torch gate order i, f, g, o; two biases per gate (b_ih + b_hh)",
    "gru": "torch convention: h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t−1}; the seeds' (001) update "
    "gate is 1 − z_t, and torch applies r_t after U_n h_{t−1}",
}


@dataclass
class StepRun:
    output: torch.Tensor  # (B, T, H * directions) from the last layer
    state: object  # as the fused module returns it
    records: dict[str, dict[str, list[torch.Tensor]]] = field(default_factory=dict)


def _cell(kind: str, nonlinearity: str):
    """The update for one step: (x_proj, h, c, W_hh, b_hh) -> (h, c, {gate: value})."""

    def rnn(xp, h, c, w_hh, b_hh):
        pre = xp + F.linear(h, w_hh, b_hh)
        h = torch.tanh(pre) if nonlinearity == "tanh" else torch.relu(pre)
        return h, c, {"h": h}

    def lstm(xp, h, c, w_hh, b_hh):
        i, f, g, o = (xp + F.linear(h, w_hh, b_hh)).chunk(4, dim=-1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        h = o * torch.tanh(c)
        return h, c, {"i": i, "f": f, "g": g, "o": o, "c": c, "h": h}

    def gru(xp, h, c, w_hh, b_hh):
        x_r, x_z, x_n = xp.chunk(3, dim=-1)
        h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
        r = torch.sigmoid(x_r + h_r)
        z = torch.sigmoid(x_z + h_z)
        n = torch.tanh(x_n + r * h_n)
        h = (1 - z) * n + z * h
        return h, c, {"r": r, "z": z, "n": n, "h": h}

    return {"rnn": rnn, "lstm": lstm, "gru": gru}[kind]


def run(model, inputs: torch.Tensor, state, clamp, record: bool, keep_graph: bool = False):
    """Run `inputs` (B, T, E) through `model.rnn`'s parameters one step at a time."""
    rnn, kind, config = model.rnn, model.kind, model.config
    cell = _cell(kind, getattr(config, "nonlinearity", "tanh"))
    batch, steps = inputs.shape[0], inputs.shape[1]
    if state is None:
        state = model.init_state(batch, inputs.device)
    h0, c0 = state if kind == "lstm" else (state, None)
    finals_h, finals_c, records = [], [], {}
    layer_input = inputs
    for layer in range(config.num_layers):
        outputs = []
        for direction in range(model.directions):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            w_ih, w_hh = getattr(rnn, "weight_ih" + suffix), getattr(rnn, "weight_hh" + suffix)
            b_ih, b_hh = getattr(rnn, "bias_ih" + suffix), getattr(rnn, "bias_hh" + suffix)
            index = layer * model.directions + direction
            h = h0[index]
            c = c0[index] if c0 is not None else None
            projected = F.linear(layer_input, w_ih, b_ih)  # (B, T, gates*H), W x_t for all t
            order = range(steps - 1, -1, -1) if direction else range(steps)
            out = [None] * steps
            rec: dict[str, list[torch.Tensor]] = {}
            for t in order:
                h, c, values = cell(projected[:, t], h, c, w_hh, b_hh)
                if clamp is not None and direction == 0 and int(clamp["layer"]) == layer:
                    h = h.clone()
                    h[:, int(clamp["unit"])] = float(clamp["value"])
                    values["h"] = h
                out[t] = h
                if record:
                    for key, value in values.items():
                        rec.setdefault(key, [None] * steps)[t] = value if keep_graph else \
                            value.detach()
            outputs.append(torch.stack(out, dim=1))  # (B, T, H)
            finals_h.append(h)
            finals_c.append(c)
            if record:
                records[f"layer {layer}" + (" reverse" if direction else "")] = rec
        layer_input = torch.cat(outputs, dim=-1) if len(outputs) > 1 else outputs[0]
        if layer < config.num_layers - 1 and rnn.dropout > 0:
            layer_input = F.dropout(layer_input, rnn.dropout, training=model.training)
    h_n = torch.stack(finals_h)  # (L*dirs, B, H)
    new_state = (h_n, torch.stack(finals_c)) if kind == "lstm" else h_n
    return StepRun(layer_input, new_state, records)
