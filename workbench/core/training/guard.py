"""The divergence guard: undo a bad step, halve the learning rate, give up after three tries.

A step is bad when its loss is NaN or infinite, or its gradient norm (before clipping) exceeds
`spike_factor` times the recent average norm. The trainer then skips the optimiser update and
restores the last good copy of weights, optimizer state, hidden state, step and token count
(taken every `KEEP_EVERY` good steps, a cheap in-memory copy), so training re-reads the same
batches with half the rate. After `MAX_TRIES` rollbacks without getting past the failing step
it stops with a message that says what to change.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import torch

from workbench.core.jobs import UserFacingError

MAX_TRIES = 3
KEEP_EVERY = 25
SPIKE_WARMUP = 20  # steps of norm history before spikes are judged
NORM_DECAY = 0.9


@dataclass
class GoodState:
    step: int
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    state: Any
    rng: torch.Tensor
    tokens_seen: int = 0


def _copy_state(state: Any) -> Any:
    if state is None:
        return None
    if isinstance(state, torch.Tensor):
        return state.detach().clone()
    return type(state)(_copy_state(s) for s in state)


class DivergenceGuard:
    def __init__(self, spike_factor: float, floor: float = 0.0) -> None:
        """`floor`: a spike must also exceed this norm (the trainer passes its clipping
        threshold). Below it a step is one the clip allows in full, and near convergence the
        average norm gets so small that an ordinary harder batch is 20× it: a date-normalising
        model at loss 0.002 (norms ~0.004) was stopped as 'diverged' by a 0.16 norm."""
        self.spike_factor = spike_factor
        self.floor = floor
        self.lr_scale = 1.0
        self.tries = 0
        self.failed_step = -1
        self.norm_average = 0.0
        self.norms_seen = 0
        self.good: GoodState | None = None

    def problem(self, loss: float, grad_norm: float) -> str:
        """Why this step is bad ('' when it is fine)."""
        if not math.isfinite(loss):
            return f"loss is {loss}"
        if not math.isfinite(grad_norm):
            return f"gradient norm is {grad_norm}"
        if (self.spike_factor > 0 and self.norms_seen >= SPIKE_WARMUP
                and grad_norm > max(self.spike_factor * self.norm_average, self.floor)):
            return (f"gradient norm {grad_norm:.3g} is over {self.spike_factor:g}× its recent "
                    f"average {self.norm_average:.3g}")
        return ""

    def record_good(self, step: int, grad_norm: float, model, optimizer, state: Any,
                    tokens_seen: int = 0) -> None:
        """After a good step: update the norm average; keep a copy every KEEP_EVERY steps."""
        self.norm_average = (grad_norm if self.norms_seen == 0 else
                             NORM_DECAY * self.norm_average + (1 - NORM_DECAY) * grad_norm)
        self.norms_seen += 1
        if step > self.failed_step:
            self.tries = 0
        if self.good is None or step % KEEP_EVERY == 0:
            self.keep(step, model, optimizer, state, tokens_seen)

    def keep(self, step: int, model, optimizer, state: Any, tokens_seen: int = 0) -> None:
        """Copy what a rollback restores (`step` is the step the copy resumes at)."""
        self.good = GoodState(step, copy.deepcopy(model.state_dict()),
                              copy.deepcopy(optimizer.state_dict()), _copy_state(state),
                              torch.get_rng_state(), tokens_seen)

    def roll_back(self, step: int, reason: str, model, optimizer) -> GoodState:
        """Restore the last good copy and halve the rate; raise after MAX_TRIES."""
        self.tries += 1
        self.failed_step = max(self.failed_step, step)
        if self.tries > MAX_TRIES or self.good is None:
            raise UserFacingError(
                f"Training diverged at step {step} ({reason}) {MAX_TRIES} times, even after "
                f"halving the learning rate each time. Lower the learning rate, set a gradient "
                "clip, or use a smaller model, then start again.")
        self.lr_scale *= 0.5
        model.load_state_dict(self.good.model)
        optimizer.load_state_dict(self.good.optimizer)
        torch.set_rng_state(self.good.rng)
        return self.good
