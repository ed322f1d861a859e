"""One step at a time through a fused recurrent module's own parameters.

Each cell's equations are in its file of `core/recurrent_cells` (elman.py, lstm.py, gru.py),
reading the weights that `nn.RNN`, `nn.LSTM` and `nn.GRU` hold (W = weight_ih, U = weight_hh,
two bias vectors b_ih + b_hh as torch keeps them). `run` drives them layer by layer and
direction by direction, recording every gate for the inspectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.recurrent_cells import CELLS

# The fused module of each recurrent kind: what a model, an encoder and a decoder train with
# (cuDNN on a GPU), and whose weights `run` below reads step by step to inspect.
# A cell without one (the peephole LSTM) trains through `run` itself: step_recurrent.py.
FUSED: dict[str, type[nn.RNNBase]] = {name: getattr(nn, cell.fused)
                                      for name, cell in CELLS.items() if cell.fused}
CONVENTIONS = {name: cell.convention for name, cell in CELLS.items()}


@dataclass
class StepRun:
    output: torch.Tensor  # (B, T, H * directions) from the last layer
    state: object  # as the fused module returns it
    records: dict[str, dict[str, list[torch.Tensor]]] = field(default_factory=dict)


def run(model, inputs: torch.Tensor, state, clamp, record: bool, keep_graph: bool = False):
    """Run `inputs` (B, T, E) through `model.rnn`'s parameters one step at a time."""
    rnn, kind, config = model.rnn, model.kind, model.config
    cell = CELLS[kind]
    step, nonlinearity = cell.step, getattr(config, "nonlinearity", "tanh")
    batch, steps = inputs.shape[0], inputs.shape[1]
    if state is None:
        state = model.init_state(batch, inputs.device)
    h0, c0 = state if cell.cell_state else (state, None)
    finals_h, finals_c, records = [], [], {}
    layer_input = inputs
    for layer in range(rnn.num_layers):
        outputs = []
        for direction in range(model.directions):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            w_ih, w_hh = getattr(rnn, "weight_ih" + suffix), getattr(rnn, "weight_hh" + suffix)
            b_ih, b_hh = getattr(rnn, "bias_ih" + suffix), getattr(rnn, "bias_hh" + suffix)
            extra = [getattr(rnn, name + suffix) for name in cell.extra_weights]
            index = layer * model.directions + direction
            h = h0[index]
            c = c0[index] if c0 is not None else None
            projected = F.linear(layer_input, w_ih, b_ih)  # (B, T, gates*H), W x_t for all t
            order = range(steps - 1, -1, -1) if direction else range(steps)
            out = [None] * steps
            rec: dict[str, list[torch.Tensor]] = {}
            for t in order:
                h, c, values = step(projected[:, t], h, c, w_hh, b_hh, nonlinearity, *extra)
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
        if layer < rnn.num_layers - 1 and rnn.dropout > 0:
            layer_input = F.dropout(layer_input, rnn.dropout, training=model.training)
    h_n = torch.stack(finals_h)  # (L*dirs, B, H)
    new_state = (h_n, torch.stack(finals_c)) if cell.cell_state else h_n
    return StepRun(layer_input, new_state, records)
