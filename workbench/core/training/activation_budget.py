"""The memory a training step keeps for the backward pass, estimated before anything is built.

`model_budget.check_memory` counted parameters and optimizer state only, so a transformer of
d_model 64 with batch 4096 × sequence 8192 passed and then died in the allocator (8.6 GB), and
an LSTM of hidden 8192 was estimated at 6.0 GB and used 9.4 GB. Activations grow with
batch × sequence × width × layers, and a transformer's attention scores with batch × heads ×
sequence² per layer; the output layer adds batch × sequence × vocabulary (logits, their
softmax and its gradient).

The factors below are float32 values kept per position and unit, counted from what the fused
kernels save for backward (an LSTM layer keeps its four gates, the cell and hidden state: 6;
a GRU 5, an Elman RNN 2; a transformer block its inputs, q, k, v, attention output, two
residual sums and two norms: about 10 values of width d_model and 2 of d_ff; the scores and
their softmax and, during backward, their gradients: 4 per head and position pair), then
checked against measured peaks (benchmarks/bench_activation_memory.py reports the ratio).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.core.config.models import config_from_dict
from workbench.core.recurrent_cells import CELLS

FLOAT = 4  # bytes: activations are float32 (bf16 autocast on a GPU keeps less: an upper bound)
GATE_VALUES = {name: cell.values_per_unit for name, cell in CELLS.items()}
TRANSFORMER_WIDTH_VALUES = 10
TRANSFORMER_FF_VALUES = 2
# scores and softmax are kept; backward holds their two gradients at once beside them. With 2
# the estimate of a transformer (d_model 64, batch 16 × 512) was 336 MiB against 557 measured
SCORE_VALUES = 4
OUTPUT_VALUES = 3  # logits, softmax, gradient of the logits


@dataclass(frozen=True)
class Dims:
    width: int
    layers: int
    vocab: int
    heads: int = 0  # 0: recurrent
    d_ff: int = 0
    per_unit: int = 2  # recurrent values kept per position and unit (GATE_VALUES)
    directions: int = 1
    embedding: int = 0


def dims_of(config: Any) -> Dims | None:
    """The sizes that drive activation memory; None for a config this does not know."""
    encoder = getattr(config, "encoder", None)
    if isinstance(encoder, dict) and encoder:  # a head on an encoder (classify, tag, MLM)
        try:
            return dims_of(config_from_dict(dict(encoder)))
        except (ValueError, TypeError, KeyError):
            return None
    vocab = int(getattr(config, "vocab_size", 0) or getattr(config, "target_vocab_size", 0)
                or 0)
    if hasattr(config, "d_model"):
        layers = int(getattr(config, "num_layers", 0) or (
            getattr(config, "encoder_layers", 0) + getattr(config, "decoder_layers", 0)))
        return Dims(int(config.d_model), layers, vocab, heads=int(config.num_heads),
                    d_ff=int(getattr(config, "d_ff", 0)))
    if hasattr(config, "hidden_size"):
        cell = str(getattr(config, "cell", "") or getattr(config, "arch", "rnn"))
        per_unit = next((v for k, v in GATE_VALUES.items() if k in cell), 2)
        layers = int(getattr(config, "num_layers", 1)) * (2 if hasattr(config, "cell") else 1)
        return Dims(int(config.hidden_size), layers, vocab, per_unit=per_unit,
                    directions=2 if getattr(config, "bidirectional", False) else 1,
                    embedding=int(getattr(config, "embedding_size", 0)))
    return None


def activation_bytes(dims: Dims, batch: int, seq: int) -> int:
    """Bytes kept for backward by one training step of `batch` sequences of `seq` tokens."""
    positions = batch * seq
    if dims.heads:
        per_layer = positions * (TRANSFORMER_WIDTH_VALUES * dims.width
                                 + TRANSFORMER_FF_VALUES * dims.d_ff)
        per_layer += SCORE_VALUES * batch * dims.heads * seq * seq
    else:
        per_layer = positions * dims.per_unit * dims.width * dims.directions
    total = dims.layers * per_layer + positions * (dims.embedding or dims.width)
    total += OUTPUT_VALUES * positions * dims.vocab
    return FLOAT * total


def sequence_length(task: Any, training: Any) -> int:
    """The longest sequence a step of this task trains on."""
    if getattr(task, "max_source_length", 0):
        return int(task.max_source_length) + int(getattr(task, "max_target_length", 0))
    if getattr(task, "max_length", 0):
        return int(task.max_length)
    return int(getattr(training, "seq_len", 0) or 1)


def largest_batch(dims: Dims, seq: int, room: int) -> int:
    """The largest power-of-two batch whose activations fit in `room` bytes (0: none)."""
    batch = 0
    while activation_bytes(dims, max(batch * 2, 1), seq) <= room and batch < 1 << 24:
        batch = max(batch * 2, 1)
    return batch


def largest_sequence(dims: Dims, room: int, longest: int) -> int:
    """The largest power-of-two sequence length of batch 1 that fits (0: none)."""
    seq = 0
    while seq * 2 <= longest and activation_bytes(dims, 1, max(seq * 2, 1)) <= room:
        seq = max(seq * 2, 1)
    return seq
