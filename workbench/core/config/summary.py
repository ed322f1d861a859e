"""What the Architecture panel shows about a model configuration (torch-free).

`workbench.core.models.summary` fills these from a model built on torch's `meta` device; the Qt
room reads them without importing torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BYTES_PER_FLOAT = 4  # float32 weights, gradients, Adam moments and activations


@dataclass(frozen=True)
class LayerRow:
    """One line of the summary table, like a row of Keras' `model.summary()`."""

    name: str  # "embedding", "lstm layer 1", "block 2", "head (Linear)"
    kind: str  # the torch module type, e.g. "Embedding", "LSTM", "Block"
    output_shape: str  # Keras style: "(None, T, 64)"; None is the batch
    params: int  # torch count; a weight shared with an earlier row counts 0 here
    keras_params: int  # the same layer in the Keras convention (one bias per gate)
    note: str = ""  # e.g. "tied to embedding"


@dataclass(frozen=True)
class ModelSummary:
    arch: str
    title: str
    rows: tuple[LayerRow, ...]
    total_params: int  # unique parameters (tied weights counted once), as torch counts them
    keras_params: int  # Keras convention: LSTM/SimpleRNN have one bias vector per gate
    batch_size: int
    seq_len: int
    activation_floats: int  # values kept for the backward pass of one training batch
    flops_per_token: int  # forward pass; a training step costs about 3x this
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def param_bytes(self) -> int:
        return self.total_params * BYTES_PER_FLOAT

    @property
    def training_state_bytes(self) -> int:
        """Gradients plus Adam's two moment estimates per parameter."""
        return 3 * self.param_bytes

    @property
    def activation_bytes(self) -> int:
        return self.activation_floats * BYTES_PER_FLOAT

    @property
    def training_bytes(self) -> int:
        return self.param_bytes + self.training_state_bytes + self.activation_bytes

    @property
    def bias_difference(self) -> int:
        """Parameters torch has beyond the Keras convention (the second bias, b_hh)."""
        return self.total_params - self.keras_params


def human_bytes(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


def human_count(count: float) -> str:
    """1234 -> '1.23 k', 3_400_000 -> '3.40 M' (for FLOPs and the like)."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= scale:
            return f"{count / scale:.2f} {unit}"
    return f"{count:.0f}"


@dataclass(frozen=True)
class MatchedSize:
    """The width proposed for `arch` so that it has about `target_params` parameters."""

    arch: str
    fields: tuple[str, ...]  # the fields to set to `width` (hidden size, and E when tied)
    width: int
    params: int
    target_arch: str
    target_params: int

    @property
    def relative_error(self) -> float:
        return (self.params - self.target_params) / max(1, self.target_params)
