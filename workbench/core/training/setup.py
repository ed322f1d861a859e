"""Choosing where and how a run trains: device, torch thread count, optimizer, autocast."""

from __future__ import annotations

import contextlib
import os

import torch

from workbench.core.config.training import TrainingConfig
from workbench.core.jobs import UserFacingError

# In the window torch gets every core but one (at least one). Measured on
# the shared 2-core machine (bench_training and a transformer step timed alone): with 1 thread
# the window trained a char-LSTM at a steady 47-49k tokens/s (0.97 of a plain loop) with GUI
# gaps p99 6 ms / max 13 ms; with 2 threads while other processes used the CPU, OpenMP's
# spinning threads waited on each other: a plain LSTM loop swung between 14k and 87k tokens/s
# and a transformer step took 0.7-1.8 s instead of 48 ms. The spare core keeps the GUI thread
# and the rest of the machine alive; on a many-core machine it costs little. Headless (the
# `workbench train` CLI) there is no GUI thread to keep alive, so "auto" takes every core; a
# user sharing the machine passes --threads.
RESERVED_CORES = 1


def choose_threads(requested: int, gui: bool = True) -> int:
    """torch threads for a run: `requested` if set, else all cores, less one when a window
    shares the process (`gui`)."""
    if requested > 0:
        return requested
    return max(1, (os.cpu_count() or 1) - (RESERVED_CORES if gui else 0))


def resolve_device(name: str) -> torch.device:
    cuda = torch.cuda.is_available()
    mps = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    if name == "auto":
        return torch.device("cuda" if cuda else "mps" if mps else "cpu")
    if name == "cuda" and not cuda:
        raise UserFacingError("Device 'cuda' was chosen but no CUDA GPU is available to this "
                              "torch build. Choose cpu or auto (see README: GPU install).")
    if name == "mps" and not mps:
        raise UserFacingError("Device 'mps' was chosen but Apple's Metal backend is not "
                              "available. Choose cpu or auto.")
    return torch.device(name)


def make_optimizer(model: torch.nn.Module, config: TrainingConfig) -> torch.optim.Optimizer:
    params = [p for p in model.parameters() if p.requires_grad]
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr, momentum=config.momentum,
                               weight_decay=config.weight_decay)
    return torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)


def autocast(device: torch.device, enabled: bool):
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def state_to(state, device: torch.device):
    """Move a hidden state (None, a tensor or nested tuples of tensors) to `device`."""
    if state is None:
        return None
    if isinstance(state, torch.Tensor):
        return state.to(device)
    return type(state)(state_to(s, device) for s in state)
