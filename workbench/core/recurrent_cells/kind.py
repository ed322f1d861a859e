"""What the app knows of one recurrent cell, in one place: its gates in the order the layer's
weights keep them, what each is called and squashed with, whether it carries a cell state, the
fused torch module that trains it, the step equations the inspectors trace, and the card and
sources the window shows. Torch-free (the Qt room reads the names and cards): a cell's `step`
uses only the methods of the tensors it is given."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# (projected input W x_t + b_ih, h_{t-1}, c_{t-1}, U, b_hh, nonlinearity, *extra weights)
#   -> (h_t, c_t, values)
Step = Callable[..., tuple[Any, Any, dict[str, Any]]]


def linear(x, weight, bias):
    """x Wᵀ + b on torch tensors without importing torch: what `F.linear` computes (addmm)."""
    return x @ weight.t() if bias is None else bias.addmm(x, weight.t())


def source_line(text: str) -> str:
    """The grey line under a card that names where its equations come from."""
    return f"<br><span style='color:#555'><small>Source: {text}</small></span>"


@dataclass(frozen=True)
class CellKind:
    name: str  # the model config's `arch` ("rnn", "lstm", "gru")
    title: str
    gates: tuple[str, ...]  # weight blocks, in the order weight_ih / weight_hh stack them
    gate_words: dict[str, str]  # gate (or state) -> what the window calls it
    squash: dict[str, str]  # gate -> "σ" or "tanh"; a gate not named uses the nonlinearity
    fused: str  # the torch.nn module that trains it ("RNN", "LSTM", "GRU"); "" = none
    convention: str  # how its weights read, said in the trace
    card: str  # the equation card (rich text), with its source line
    worked_source: str  # what the click-a-cell computation cites
    step: Step = field(repr=False)
    cell_state: bool = False  # keeps c_t beside h_t: its state is (h, c)
    values_per_unit: int = 2  # values a trace keeps per position and unit (activation budget)
    # the gate whose recurrent term is multiplied by the reset gate r after U h (GRU's n)
    reset_after: str = ""
    # gates that also read the cell state through a matrix V (peepholes): V stacks their
    # blocks in this order as the layer's `weight_ch`; "o" reads c_t, the others c_{t-1}
    peepholes: tuple[str, ...] = ()
    # the tasks it trains for (a cell with no fused torch module trains step by step, which
    # reads no padded batch: a language model only); () = the recurrent family's tasks
    tasks: tuple[str, ...] = ()

    @property
    def extra_weights(self) -> tuple[str, ...]:
        """Per-layer weights beyond W, U and the biases (passed to `step` in this order)."""
        return ("weight_ch",) if self.peepholes else ()

    def squash_name(self, gate: str, nonlinearity: str = "tanh") -> str:
        """σ for a gate, tanh for a candidate, the Elman cell's own g for its state."""
        if gate in self.squash:
            return self.squash[gate]
        return "ReLU" if nonlinearity == "relu" else "tanh"

    def sigmoid_gates(self) -> tuple[str, ...]:
        return tuple(gate for gate in self.gates if self.squash.get(gate) == "σ")
