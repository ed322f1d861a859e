"""Parameter counts, a Keras-style layer table, memory and FLOPs estimates for a model.

The model is built on torch's `meta` device (shapes only, no memory, a few milliseconds), run
once on a dummy batch with forward hooks that record each layer's output shape and the
multiply-adds it does. Nothing here branches on architecture names: it reads module types,
so any registered family gets a table.

Keras convention: `LSTM` and `SimpleRNN` have one bias vector per gate, torch two (b_ih, b_hh),
so torch counts 4·H more per LSTM layer and direction (SEEDS 3.6). Keras' `GRU` (reset_after,
the TF2 default) keeps both biases, as torch does.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import torch
from torch import nn

from workbench.core.config.summary import LayerRow, ModelSummary
from workbench.core.models.registry import build_model
from workbench.core.models.step_recurrent import StepRecurrent
from workbench.core.recurrent_cells import CELLS

_LAYER = re.compile(r"_l(\d+)(_reverse)?$")


def keras_extra_bias(module: nn.Module) -> int:
    """Parameters of `module` that the Keras convention does not have (torch's b_hh)."""
    if isinstance(module, (nn.LSTM, nn.RNN, StepRecurrent)):  # Keras: one bias a gate
        return sum(p.numel() for name, p in module.named_parameters() if name.startswith("bias_hh"))
    return 0


def count_params(module: nn.Module) -> tuple[int, int]:
    """(torch count, Keras-convention count) of unique parameters (tied weights once)."""
    torch_count = sum(p.numel() for p in module.parameters())
    extra = sum(keras_extra_bias(m) for m in module.modules())
    return torch_count, torch_count - extra


def _shape(output: Any) -> tuple[int, ...] | None:
    while isinstance(output, (tuple, list)) and output:
        output = output[0]
    return tuple(output.shape) if isinstance(output, torch.Tensor) else None


def keras_shape(shape: tuple[int, ...] | None) -> str:
    """(B, T, 64) -> '(None, T, 64)': batch unknown, time named."""
    if shape is None:
        return "—"
    dims = ["None", *(str(d) for d in shape[1:])]
    if len(shape) == 3:
        dims[1] = "T"
    return "(" + ", ".join(dims) + ")"


def _rows_of(name: str, module: nn.Module) -> list[tuple[str, nn.Module]]:
    """Containers open up (transformer blocks) so each block gets a row, and so do the parts
    of a composed model (an encoder and a decoder, which carry their own `config`)."""
    if isinstance(module, (nn.ModuleList, nn.Sequential)):
        return [(f"{name.removesuffix('s')} {i + 1}", child) for i, child in enumerate(module)]
    if hasattr(module, "config") and next(module.children(), None) is not None:
        return [row for child_name, child in module.named_children()
                for row in _rows_of(f"{name} {_NAMES.get(child_name, child_name)}", child)]
    return [(_NAMES.get(name, name), module)]


_NAMES = {"drop": "dropout", "final_norm": "final LayerNorm", "bridge_h": "bridge W_b",
          "bridge_c": "bridge of the cell state", "score": "attention score",
          "combine": "attentional layer W_c", "pool": "pooling", "cls": "[CLS] vector",
          "embed_norm": "embedding LayerNorm"}


def _shape_text(module: nn.Module, probe: _Probe) -> str:
    if module in probe.shapes:
        return keras_shape(probe.shapes[module])
    if isinstance(module, nn.Embedding):  # a table read directly, e.g. learned positions
        return f"(T, {module.embedding_dim}) added"
    return "—"


class _Probe:
    """Forward hooks: output shapes, multiply-adds and saved activations of one dummy pass."""

    def __init__(self, model: nn.Module) -> None:
        self.shapes: dict[nn.Module, tuple[int, ...] | None] = {}
        self.order: dict[nn.Module, int] = {}  # first call: the table follows execution order
        self.flops = 0
        self.activations = 0
        self.handles = [m.register_forward_hook(self._hook) for m in model.modules()]

    def _hook(self, module: nn.Module, inputs: tuple, output: Any) -> None:
        shape = _shape(output)
        self.shapes.setdefault(module, shape)
        self.order.setdefault(module, len(self.order))
        x = inputs[0] if inputs and isinstance(inputs[0], torch.Tensor) else None
        if isinstance(module, nn.Linear):
            tokens = x.numel() // module.in_features
            self.flops += 2 * tokens * module.in_features * module.out_features
        elif isinstance(module, (nn.RNNBase, StepRecurrent)):
            tokens = x.shape[0] * x.shape[1]
            weights = sum(p.numel() for n, p in module.named_parameters() if n.startswith("weight"))
            self.flops += 2 * tokens * weights
            # gates (and LSTM cell states) of every layer, direction and step are kept for BPTT
            gates = module.weight_ih_l0.shape[0] * (2 if module.bidirectional else 1)
            cells = module.hidden_size if isinstance(module, nn.LSTM) or (
                isinstance(module, StepRecurrent) and CELLS[module.kind].cell_state) else 0
            self.activations += tokens * module.num_layers * (gates + cells)
        elif hasattr(module, "heads") and x is not None and x.dim() == 3:
            # causal attention: query t scores and mixes t keys -> d·T(T+1)/2 multiply-adds
            # twice; an encoder's query scores and mixes all T keys -> d·T²
            batch, steps, width = x.shape
            keys = (steps + 1) / 2 if getattr(module, "causal", True) else steps
            self.flops += int(2 * 2 * batch * width * steps * keys)
            self.activations += batch * module.heads * steps * steps  # attention weights α
        if not list(module.children()) and shape is not None and not isinstance(
                module, nn.Identity):
            self.activations += int(torch.Size(shape).numel())

    def close(self) -> None:
        for handle in self.handles:
            handle.remove()


def _containers(model: nn.Module) -> list[nn.Module]:
    """The model and the parts it asks to open (`summary_container`, e.g. a task model's
    encoder), so a classifier's table lists embedding, LSTM layers and head as Keras does."""
    opened = getattr(model, "summary_container", ())
    return [model, *(child for name, child in model.named_children() if name in opened)]


def _table_children(model: nn.Module) -> list[tuple[str, nn.Module]]:
    opened = getattr(model, "summary_container", ())
    children = []
    for name, child in model.named_children():
        children.extend(child.named_children() if name in opened else [(name, child)])
    return children


def layer_table(model: nn.Module, probe: _Probe) -> list[LayerRow]:
    """One row per top-level layer; a fused multi-layer RNN gets a row per stacked layer."""
    keyed: list[tuple[float, int, LayerRow]] = []
    seen: dict[int, str] = {}
    key = -1.0
    for top_name, top in _table_children(model):
        for name, module in _rows_of(top_name, top):
            if isinstance(module, nn.Identity):
                continue  # dropout switched off, or no final LayerNorm: not a layer
            # called modules sort by first call; uncalled ones stay after their predecessor
            key = probe.order[module] if module in probe.order else key + 0.001
            kind = type(module).__name__
            shape = _shape_text(module, probe)
            if isinstance(module, (nn.RNNBase, StepRecurrent)):
                for row in _recurrent_rows(name, module, shape, seen):
                    keyed.append((key, len(keyed), row))
                continue
            params, shared = 0, []
            for param in module.parameters():
                if id(param) in seen:
                    shared.append(seen[id(param)])
                else:
                    seen[id(param)] = name
                    params += param.numel()
            note = f"weight shared with {shared[0]}" if shared else ""
            keyed.append((key, len(keyed), LayerRow(name, kind, shape, params, params, note)))
    rows = [row for *_, row in sorted(keyed)]
    # fixed tables added to the embeddings (a sinusoidal encoding): no parameters, but a layer;
    # and parameters held directly by an opened part (a [CLS] vector)
    fixed = [LayerRow(name, "fixed table", f"(T, {buffer.shape[-1]}) added", 0, 0, "not trained")
             for part in _containers(model)
             for name, buffer in part.named_buffers(recurse=False) if buffer.dim() == 2]
    fixed += [LayerRow(_NAMES.get(name, name), "Parameter", f"(1, {p.shape[-1]}) prepended",
                       p.numel(), p.numel(), "") for part in _containers(model)[1:]
              for name, p in part.named_parameters(recurse=False)]
    return rows[:1] + fixed + rows[1:]


def _recurrent_rows(name: str, module: nn.RNNBase | StepRecurrent, shape: str,
                    seen: dict[int, str]) -> list[LayerRow]:
    stepped = isinstance(module, StepRecurrent)
    kind = module.summary_kind if stepped else type(module).__name__
    per_layer: dict[int, list[int]] = {}
    for param_name, param in module.named_parameters():
        seen[id(param)] = name
        layer = int(_LAYER.search(param_name).group(1))
        totals = per_layer.setdefault(layer, [0, 0])
        totals[0] += param.numel()
        keras_counts = not param_name.startswith("bias_hh") or keras_extra_bias(module) == 0
        totals[1] += param.numel() if keras_counts else 0
    note = "bidirectional: forward ⊕ backward" if module.bidirectional else ""
    if name == "rnn" or name.endswith(" rnn"):  # a fused stack: name rows by the cell
        name = name.removesuffix("rnn") + (module.kind if stepped else kind.lower())
    return [
        LayerRow(name if len(per_layer) == 1 else f"{name} layer {layer + 1}", kind, shape, t, k,
                 note)
        for layer, (t, k) in sorted(per_layer.items())
    ]


def summarize_module(model: nn.Module, *, arch: str, title: str, batch_size: int,
                     seq_len: int, notes: tuple[str, ...] = ()) -> ModelSummary:
    """The summary of any token-in module (built on the meta device or not)."""
    device = next(model.parameters()).device
    probe = _Probe(model)
    example = getattr(model, "example_inputs", None)  # models that read more than tokens
    inputs = example(batch_size, seq_len) if example else (
        torch.zeros(batch_size, seq_len, dtype=torch.long, device=device),)
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        probe.close()
    total, keras = count_params(model)
    return ModelSummary(
        arch=arch, title=title, rows=tuple(layer_table(model, probe)), total_params=total,
        keras_params=keras, batch_size=batch_size, seq_len=seq_len,
        activation_floats=probe.activations, flops_per_token=probe.flops // (batch_size * seq_len),
        notes=notes,
    )


def default_seq_len(config: Any) -> int:
    return int(getattr(config, "context_length", getattr(config, "max_length", 128)))


def summarize(config: Any, batch_size: int = 32, seq_len: int | None = None) -> ModelSummary:
    """Summary of the model `config` describes (vocab_size must be set)."""
    seq_len = seq_len or default_seq_len(config)
    with torch.device("meta"):
        model = build_model(config)
    model.train()
    notes = []
    if any(isinstance(m, nn.GRU) for m in model.modules()):
        notes.append("Keras' GRU (reset_after, the TF2 default) keeps both biases, as torch.")
    if any(isinstance(m, (nn.LSTM, nn.RNN)) for m in model.modules()):
        notes.append("Keras counts one bias per gate; torch has two (b_ih + b_hh).")
    return summarize_module(model, arch=config.arch, title=config.title, batch_size=batch_size,
                            seq_len=seq_len, notes=tuple(notes))


def parameter_count(config: Any) -> int:
    with torch.device("meta"):
        return sum(p.numel() for p in build_model(config).parameters())


def size_fields(config: Any) -> tuple[str, ...]:
    """The width fields the matched-size helper moves together (tying needs E = H)."""
    if hasattr(config, "hidden_size"):
        tied = getattr(config, "tie_weights", False)
        return ("hidden_size", "embedding_size") if tied else ("hidden_size",)
    return ("d_model",)


def _step(config: Any) -> int:
    heads = getattr(config, "num_heads", 1)
    return max(1, heads)  # d_model must stay a multiple of the number of heads


def matched_size(config: Any, target_params: int) -> tuple[int, int]:
    """The width for `config` whose parameter count is closest to `target_params`.

    Returns (width, parameter count). The count grows with the width, so a bisection over
    multiples of the step finds the two neighbours of the target; the closer one wins.
    """
    fields = size_fields(config)
    meta = {f.name: f.metadata for f in dataclasses.fields(config)}
    step = _step(config)
    low = -(-max(int(meta[f]["min"] or 1) for f in fields) // step)
    high = min(int(meta[f]["max"] or 8192) for f in fields) // step

    def count(k: int) -> int:
        return parameter_count(dataclasses.replace(config, **{f: k * step for f in fields}))

    while high - low > 1:
        mid = (low + high) // 2
        if count(mid) < target_params:
            low = mid
        else:
            high = mid
    best = min((low, high), key=lambda k: abs(count(k) - target_params))
    return best * step, count(best)
