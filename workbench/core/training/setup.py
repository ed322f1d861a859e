"""Choosing where and how a run trains: device, torch thread count, optimizer, autocast."""

from __future__ import annotations

import contextlib

import torch

from workbench.core.config.training import TrainingConfig
from workbench.core.jobs import UserFacingError


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
