"""Checks before a model is built for real: does it fit in memory, and does it fit the weights
it is about to receive?

The model is first built on torch's "meta" device, which gives every tensor its shape and
allocates nothing, so a recipe asking for 7.8 GB or a checkpoint whose metadata claims a
vocabulary of 3 million is refused with a message before any memory goes, and a checkpoint
whose config disagrees with its own tensors is named tensor by tensor instead of failing in
torch.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import torch

from workbench.core.jobs import UserFacingError

# bytes per trained parameter: float32 weights, gradients and AdamW's two moments (16), and
# the divergence guard's two copies of weights and moments (the last good state and the best
# validation's, training/guard.py: 24)
TRAINING_BYTES = 40
INFERENCE_BYTES = 8  # weights plus a working copy (snapshots keep a numpy copy)
FROZEN_BYTES = 4  # a weight that does not train (LoRA's base model): no gradient, no moments,
# and the guard does not copy it
FREE_SHARE = 0.8  # of the memory available now, what a model may take


def available_memory_bytes() -> int:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def shapes_on_meta(build: Callable[[Any], Any]) -> dict[str, tuple[int, ...]]:
    """The state-dict shapes of `build()`'s model, built without allocating memory."""
    return built_on_meta(build)[0]


def built_on_meta(build: Callable[[Any], Any]) -> tuple[dict[str, tuple[int, ...]], Any]:
    """The state-dict shapes of `build()`'s model and its config, allocating nothing."""
    with torch.device("meta"), warnings.catch_warnings():
        # a builder that loads pretrained weights (fine-tuning) copies them into meta tensors,
        # a no-op torch warns about; only the shapes are wanted here
        warnings.filterwarnings("ignore", message=".*meta parameter.*")
        model = build()
    shapes = {name: tuple(tensor.shape) for name, tensor in model.state_dict().items()}
    return shapes, getattr(model, "config", None)


def check_training_memory(shapes: dict[str, tuple[int, ...]], config: Any, batch: int,
                          seq: int, what: str, trained: int | None = None) -> None:
    """`UserFacingError` when parameters, optimizer state and one step's activations
    (activation_budget.py) would take more than FREE_SHARE of free memory, with the largest
    batch (or sequence) that fits. `trained`: how many of the values train (LoRA's factors;
    None: all), the others counted as frozen weights alone."""
    from workbench.core.training import activation_budget as act

    values = sum(_count(shape) for shape in shapes.values())
    fixed = values * TRAINING_BYTES if trained is None else \
        values * FROZEN_BYTES + trained * TRAINING_BYTES
    dims = act.dims_of(config)
    moving = act.activation_bytes(dims, batch, seq) if dims else 0
    free = available_memory_bytes()
    room = int(FREE_SHARE * free)
    if fixed + moving <= room:
        return
    if (fixed > room or dims is None) and trained is None:
        check_memory(shapes, TRAINING_BYTES, what)  # the model alone does not fit
        return
    if fixed > room or dims is None:
        raise UserFacingError(f"{what} needs about {_size(fixed)} for its frozen weights and "
                              f"LoRA's factors, but only {_size(free)} of memory is free. "
                              "Choose a smaller model or close other programs.")
    fits = act.largest_batch(dims, seq, room - fixed)
    if fits:
        advice = f"batch {fits} fits at this length"
    else:
        shorter = act.largest_sequence(dims, room - fixed, seq)
        advice = (f"even batch 1 does not fit; sequences of {shorter} tokens would" if shorter
                  else "even batch 1 of one token does not fit")
    raise UserFacingError(
        f"{what} with batch {batch} × sequence {seq} needs about {_size(fixed + moving)} "
        f"(parameters and optimizer {_size(fixed)}, activations {_size(moving)}), but only "
        f"{_size(free)} of memory is free; {advice}. Lower the batch size or the sequence "
        "length, or choose a narrower model.")


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GB" if count >= 2**30 else f"{count / 2**20:.0f} MB"


def check_memory(shapes: dict[str, tuple[int, ...]], bytes_per_value: int, what: str) -> None:
    """`UserFacingError` when the model would take more than FREE_SHARE of free memory."""
    values = sum(_count(shape) for shape in shapes.values())
    need, free = values * bytes_per_value, available_memory_bytes()
    if need > FREE_SHARE * free:
        raise UserFacingError(
            f"{what} needs about {need / 2**30:.1f} GB ({values:,} parameters), but only "
            f"{free / 2**30:.1f} GB of memory is free. Choose a smaller model (fewer or "
            "narrower layers, a smaller vocabulary) or close other programs.")


def check_fits(shapes: dict[str, tuple[int, ...]], tensors: dict[str, Any], where: str) -> None:
    """`UserFacingError` naming the first tensor whose name or shape the config does not
    predict (the config was edited, or belongs to other weights)."""
    missing = sorted(set(shapes) - set(tensors))
    extra = sorted(set(tensors) - set(shapes))
    if missing or extra:
        raise UserFacingError(
            f"{where}: its model settings do not match its weights (missing {missing[:3]}, "
            f"unexpected {extra[:3]}). The metadata was changed or belongs to other weights; "
            "use another checkpoint.")
    for name, shape in shapes.items():
        found = tuple(tensors[name].shape)
        if found != shape:
            raise UserFacingError(
                f"{where}: its model settings give '{name}' the shape {shape}, but the saved "
                f"tensor is {found}. The metadata was changed or belongs to other weights; use "
                "another checkpoint.")


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total
