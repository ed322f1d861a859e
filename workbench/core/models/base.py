"""The protocol every language model implements (DESIGN.md section 3).

Two paths over the same parameters:
- `forward` is the fast path the trainer uses (fused cuDNN/oneDNN kernels, SDPA);
- `trace` replays a short probe step by step, as a direct transcription of the seeds'
  equations, and keeps every internal (gates, cell states, attention weights) as numpy.
Tests assert that both give the same logits. The trainer and the inspectors only use these
methods, so no code outside this package branches on an architecture's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn

from workbench.core.trace import Trace

State = Any  # None, a tensor (L*dirs, B, H), or a tuple of them (LSTM: (h, c))
Clamp = dict[str, float] | None  # {"layer", "unit", "value"} or {"layer", "head", "value"}


class SequenceModel(nn.Module, ABC):
    """Base class: token ids (B, T) in, next-token logits (B, T, V) out."""

    supports_state: bool = False  # True: state carries across calls (truncated BPTT)
    causal: bool = True  # False for bidirectional encoders, which cannot be language models

    def __init__(self, config: Any) -> None:
        super().__init__()
        self.config = config

    def init_state(self, batch_size: int, device: torch.device | None = None) -> State:
        return None

    def detach_state(self, state: State) -> State:
        """Cut the graph between training windows (truncated back-propagation through time)."""
        if state is None:
            return None
        if isinstance(state, torch.Tensor):
            return state.detach()
        return tuple(s.detach() for s in state)

    @abstractmethod
    def forward(self, tokens: torch.Tensor, state: State = None) -> tuple[torch.Tensor, State]:
        """Fast path: logits (B, T, V) and the state after the last token."""

    @abstractmethod
    def forward_clamped(
        self, tokens: torch.Tensor, state: State, clamp: Clamp
    ) -> tuple[torch.Tensor, State]:
        """The step-by-step path with a unit or head clamped (the generation console uses it)."""

    @abstractmethod
    def trace(
        self,
        tokens: torch.Tensor,
        state: State = None,
        clamp: Clamp = None,
        token_text: list[str] | None = None,
    ) -> Trace:
        """Replay a probe step by step with the same weights, keeping every internal."""

    def parameter_count(self) -> int:
        """Distinct parameters (a tied embedding and output matrix count once)."""
        return sum(p.numel() for p in self.parameters())


def as_probe(tokens: torch.Tensor) -> torch.Tensor:
    """Accept (T,) or (1, T) token ids; return (1, T) long on the model's CPU."""
    tokens = torch.as_tensor(tokens, dtype=torch.long)
    if tokens.dim() == 1:
        tokens = tokens.unsqueeze(0)
    if tokens.dim() != 2 or tokens.shape[0] != 1:
        raise ValueError(f"a probe is one sequence of token ids, got shape {tuple(tokens.shape)}")
    return tokens


def model_device(model: nn.Module) -> torch.device:
    """Where the model's weights are: an answer or preview built during training on a GPU must
    feed the model there (the CPU default crashed the tag and masked-LM previews on CUDA)."""
    first = next(model.parameters(), None)
    return first.device if first is not None else torch.device("cpu")


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A float32 CPU copy for a Trace (the Qt room only ever sees numpy)."""
    return tensor.detach().float().cpu().numpy()


def token_labels(tokens: torch.Tensor, token_text: list[str] | None) -> list[str]:
    ids = tokens.reshape(-1).tolist()
    if token_text is not None and len(token_text) == len(ids):
        return list(token_text)
    return [str(i) for i in ids]


@contextmanager
def eval_mode(model: nn.Module, grad: bool = False) -> Iterator[None]:
    """Run a probe in eval mode (no dropout), without gradients unless asked, and put the
    model back in the mode it was in, even if the probe fails."""
    was_training = model.training
    model.eval()
    try:
        with torch.set_grad_enabled(grad):
            yield
    finally:
        model.train(was_training)


def state_gradient_norms(loss: torch.Tensor, states: dict[str, list[torch.Tensor]]
                         ) -> dict[str, np.ndarray]:
    """‖∂loss/∂h_t‖ for each layer's recorded states h_1 … h_T (kept in the graph): the
    gradient-through-time curve; a state the loss does not reach reads 0."""
    flat = [h for steps in states.values() for h in steps]
    grads = torch.autograd.grad(loss, flat, allow_unused=True)
    norms, i = {}, 0
    for name, steps in states.items():
        chunk = grads[i:i + len(steps)]
        i += len(steps)
        norms[name] = np.array([0.0 if g is None else float(g.norm()) for g in chunk])
    return norms
