"""Imported once by the forkserver of fault_children.py: torch's first model, optimizer step
and save each load more of torch (seconds on a loaded machine); done here, once, every forked
child starts warm."""

import torch
from safetensors.torch import save

import workbench.core.training_loop.trainer  # noqa: F401

_model = torch.nn.GRU(4, 4)
_optimizer = torch.optim.AdamW(_model.parameters())
_model(torch.zeros(1, 1, 4))[0].sum().backward()
_optimizer.step()
save({"w": torch.zeros(1)})
