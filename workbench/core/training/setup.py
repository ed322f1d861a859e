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
                              "torch build. Choose cpu or auto (see "
                              "docs/guide/gpu-and-servers.md).")
    if name == "mps" and not mps:
        raise UserFacingError("Device 'mps' was chosen but Apple's Metal backend is not "
                              "available. Choose cpu or auto.")
    return torch.device(name)


def device_available(name: str) -> bool:
    try:
        resolve_device(name)
    except UserFacingError:
        return False
    return True


def rng_state(device: torch.device) -> torch.Tensor:
    """The random state a checkpoint or a rollback keeps: the CPU generator's, then on a GPU
    that GPU's. Dropout and scheduled teacher forcing draw on the GPU's own generator there, so
    with the CPU's alone a resumed CUDA run drew other coins and was not exact."""
    state = torch.get_rng_state()
    if device.type == "cuda":
        state = torch.cat([state, torch.cuda.get_rng_state(device)])
    return state


def set_rng_state(state: torch.Tensor, device: torch.device) -> None:
    """Put back what `rng_state` kept. A GPU's part is skipped on the CPU (a run from the lab's
    GPU continued on a laptop cannot draw the same numbers anyway), and a CPU checkpoint
    resumed on a GPU leaves the GPU's generator as it is."""
    size = torch.get_rng_state().numel()
    torch.set_rng_state(state[:size].clone())
    if device.type == "cuda" and state.numel() > size:
        torch.cuda.set_rng_state(state[size:].clone(), device)


def make_optimizer(model: torch.nn.Module, config: TrainingConfig) -> torch.optim.Optimizer:
    params = [p for p in model.parameters() if p.requires_grad]
    if config.optimizer == "sgd":
        return torch.optim.SGD(params, lr=config.lr, momentum=config.momentum,
                               weight_decay=config.weight_decay)
    # On a GPU the fused AdamW updates every tensor in one kernel. The trainer reads each
    # step's loss before updating (the divergence guard), so the GPU waits while the update is
    # launched; the default multi-tensor AdamW's series of launches was part of that wait.
    fused = bool(params) and all(p.device.type == "cuda" for p in params)
    return torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay,
                             fused=fused or None)


def load_optimizer_state(optimizer: torch.optim.Optimizer, state: dict) -> None:
    """Load a saved optimizer state but keep this optimizer's implementation: the saved
    groups carry the `fused` flag of the device that wrote them (a GPU run resumed on a CPU)."""
    kept = [{k: group.get(k) for k in ("fused", "foreach")} for group in optimizer.param_groups]
    optimizer.load_state_dict(state)
    for group, flags in zip(optimizer.param_groups, kept, strict=True):
        group.update(flags)


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
