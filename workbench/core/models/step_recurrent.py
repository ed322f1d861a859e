"""Recurrent layers for a cell torch has no fused module for (the peephole LSTM): the same
parameters a fused module would hold (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`,
`bias_hh_l0`, `_reverse` for the second direction) plus the cell's own (`weight_ch_l0`), run
step by step through the cell's equations in `recurrent_steps.run`, the path the inspectors
trace. Training reads the same equations as inspection, one time step at a time: several times
slower than a fused LSTM, which `benchmarks/` does not claim otherwise.

`recurrent_layers` builds either kind for the models, the encoders and the decoders."""

from __future__ import annotations

import math

import torch
from torch import nn

from workbench.core.models import recurrent_steps
from workbench.core.recurrent_cells import CELLS


class StepRecurrent(nn.Module):
    """A stack of `kind` layers with the fused modules' call: (B, T, E), state -> output, state."""

    batch_first = True

    def __init__(self, kind: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 dropout: float = 0.0, bidirectional: bool = False, config=None) -> None:
        super().__init__()
        cell = CELLS[kind]
        self.kind, self.config = kind, config
        self.hidden_size, self.num_layers, self.dropout = hidden_size, num_layers, dropout
        self.bidirectional, self.directions = bidirectional, (2 if bidirectional else 1)
        self.summary_kind = cell.title.replace(" ", "")  # the layer table's type: PeepholeLSTM
        blocks = len(cell.gates) * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)  # torch's default for its recurrent modules
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * self.directions
            for direction in range(self.directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = {"weight_ih": (blocks, width), "weight_hh": (blocks, hidden_size),
                          "bias_ih": (blocks,), "bias_hh": (blocks,)}
                for name in cell.extra_weights:  # the peepholes: one H x H block a gate
                    shapes[name] = (len(cell.peepholes) * hidden_size, hidden_size)
                for name, shape in shapes.items():
                    weight = nn.Parameter(torch.empty(shape).uniform_(-bound, bound))
                    self.register_parameter(name + suffix, weight)

    @property
    def rnn(self) -> StepRecurrent:  # what `recurrent_steps.run` reads the weights from
        return self

    def init_state(self, batch_size: int, device: torch.device | None = None):
        shape = (self.num_layers * self.directions, batch_size, self.hidden_size)
        zeros = torch.zeros(shape, device=device or self.weight_ih_l0.device)
        return (zeros, zeros.clone()) if CELLS[self.kind].cell_state else zeros

    def forward(self, inputs: torch.Tensor, state=None):
        if not isinstance(inputs, torch.Tensor):
            raise TypeError(f"{CELLS[self.kind].title} layers read unpadded batches only")
        run = recurrent_steps.run(self, inputs, state, None, record=False)
        return run.output, run.state


def recurrent_layers(kind: str, input_size: int, hidden_size: int, *, num_layers: int = 1,
                     dropout: float = 0.0, bidirectional: bool = False, config=None,
                     nonlinearity: str | None = None) -> nn.Module:
    """The fused torch module of `kind` when it has one (cuDNN on a GPU), else its layers
    run step by step; `nonlinearity` is the Elman cell's g."""
    dropout = dropout if num_layers > 1 else 0.0
    fused = recurrent_steps.FUSED.get(kind)
    if fused is None:
        return StepRecurrent(kind, input_size, hidden_size, num_layers, dropout, bidirectional,
                             config)
    extra = {"nonlinearity": nonlinearity} if nonlinearity else {}
    return fused(input_size, hidden_size, num_layers=num_layers, dropout=dropout,
                 batch_first=True, bidirectional=bidirectional, **extra)
