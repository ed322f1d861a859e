"""The divergence guard: undo a bad step, halve the learning rate, give up after three tries.

A step is bad when its loss is NaN or infinite, or its gradient norm (before clipping) exceeds
`spike_factor` times the recent average norm, or (after warm-up) the mean loss of the last
`LOSS_WINDOW` steps is above the loss of a uniform guess (ln |V| for a language model) by more
than a quarter of it: a model worse than guessing is blowing up, even when each step looks
finite (at a high learning rate runs used to finish "done" at 14 to 2,340 nats per token, with
4.4 the uniform loss). A validation is bad when its loss rose `RISES` times in a row while the
training loss rose too (falling training loss with rising validation loss is overfitting, not
divergence); that rolls back to the copy taken at the best validation.

The trainer then skips the optimiser update and restores the last good copy of weights,
optimizer state, hidden state, step and token count (taken every `KEEP_EVERY` good steps, a
cheap in-memory copy), so training re-reads the same batches with half the rate. After
`MAX_TRIES` rollbacks without getting past the failing step it stops with a message that says
what to change.
"""

from __future__ import annotations

import copy
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import torch

from workbench.core.jobs import UserFacingError
from workbench.core.models.base import model_device
from workbench.core.training.setup import rng_state, set_rng_state

MAX_TRIES = 3
KEEP_EVERY = 25
SPIKE_WARMUP = 20  # steps of norm history before spikes are judged
# The recent average norm remembers about 100 steps. A classifier that fits most of its training
# batches has heavy-tailed norms: most batches near 0.03, one in ten with a misclassified
# sentence at 5-13. A 10-step average (0.9) fell to 0.25 between two hard batches, so the next
# one counted as a 50x "spike"; the rollback re-read the same batch, the same sentence was still
# wrong, and the sentiment-transformer preset stopped as diverged at step 511 although its loss
# never rose. Over 100 steps the hard batches are part of the average (worst ratio 7 in that
# run), while a real blow-up, 20x a steady norm, is caught as before.
NORM_DECAY = 0.99
LOSS_WINDOW = 10  # steps whose mean loss is compared with the uniform guess
UNIFORM_MARGIN = 0.25  # share of the uniform loss allowed above it before it is divergence
RISES = 3  # validations in a row whose loss rose, with the training loss, = divergence


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
    def __init__(self, spike_factor: float, uniform_loss: float | None = None,
                 warmup_steps: int = 0, floor: float = 0.0) -> None:
        """`floor`: a spike must also exceed this norm (the trainer passes its clipping
        threshold). Below it a step is one the clip allows in full, and near convergence the
        average norm gets so small that an ordinary harder batch is 20× it: a date-normalising
        model at loss 0.002 (norms ~0.004) was stopped as 'diverged' by a 0.16 norm."""
        self.spike_factor = spike_factor
        self.floor = floor
        self.uniform_loss = uniform_loss  # None: the task knows no uniform guess
        self.warmup = max(SPIKE_WARMUP, warmup_steps)
        self.lr_scale = 1.0
        self.tries = 0
        self.failed_step = -1
        self.norm_average = 0.0
        self.norms_seen = 0
        self.good: GoodState | None = None
        self.best: GoodState | None = None  # the copy taken at the best validation
        self.recent: deque[float] = deque(maxlen=LOSS_WINDOW)
        self.interval: list[float] = []  # training losses since the last validation
        self.validations: list[tuple[float, float]] = []  # (validation loss, training mean)

    def above_uniform(self, loss: float) -> bool:
        """Worse than a uniform guess by more than the margin (never for unknown uniform)."""
        limit = self.uniform_loss
        return limit is not None and loss > limit * (1 + UNIFORM_MARGIN)

    def problem(self, loss: float, grad_norm: float) -> str:
        """Why this step is bad ('' when it is fine)."""
        if not math.isfinite(loss):
            return f"loss is {loss}"
        if not math.isfinite(grad_norm):
            return f"gradient norm is {grad_norm}"
        window = [*self.recent, loss]
        mean = sum(window) / len(window)
        if (self.norms_seen >= self.warmup and len(window) >= LOSS_WINDOW
                and self.above_uniform(mean)):
            return (f"the mean loss of the last {len(window)} steps, {mean:.3g}, is above "
                    f"{self.uniform_loss:.3g}, the loss of a uniform guess")
        if (self.spike_factor > 0 and self.norms_seen >= SPIKE_WARMUP
                and grad_norm > max(self.spike_factor * self.norm_average, self.floor)):
            return (f"gradient norm {grad_norm:.3g} is over {self.spike_factor:g}× its recent "
                    f"average {self.norm_average:.3g}")
        return ""

    def record_good(self, step: int, grad_norm: float, model, optimizer, state: Any,
                    tokens_seen: int = 0, loss: float | None = None) -> None:
        """After a good step: update the norm average; keep a copy every KEEP_EVERY steps."""
        if loss is not None:
            self.recent.append(loss)
            self.interval.append(loss)
        self.norm_average = (grad_norm if self.norms_seen == 0 else
                             NORM_DECAY * self.norm_average + (1 - NORM_DECAY) * grad_norm)
        self.norms_seen += 1
        if step > self.failed_step:
            self.tries = 0
        if self.good is None or step % KEEP_EVERY == 0:
            self.keep(step, model, optimizer, state, tokens_seen)

    def keep(self, step: int, model, optimizer, state: Any, tokens_seen: int = 0) -> None:
        """Copy what a rollback restores (`step` is the step the copy resumes at)."""
        self.good = GoodState(step, changing_weights(model),
                              copy.deepcopy(optimizer.state_dict()), _copy_state(state),
                              rng_state(model_device(model)), tokens_seen)

    def validation_problem(self, val_loss: float) -> str:
        """Why this validation shows divergence ('' when it does not)."""
        train = sum(self.interval) / len(self.interval) if self.interval else math.nan
        self.interval = []
        self.validations.append((val_loss, train))
        last = self.validations[-(RISES + 1):]
        if len(last) <= RISES or not all(math.isfinite(t) for _, t in last):
            return ""
        rising = all(b[0] > a[0] for a, b in zip(last, last[1:], strict=False))
        if rising and last[-1][1] > last[0][1]:
            return (f"the validation loss rose {RISES} times in a row ({last[0][0]:.3g} to "
                    f"{last[-1][0]:.3g}) while the training loss rose too ({last[0][1]:.3g} to "
                    f"{last[-1][1]:.3g})")
        return ""

    def keep_best(self, step: int, model, optimizer, state: Any, tokens_seen: int) -> None:
        """Copy the state of a new best validation (what a validation rollback restores)."""
        self.best = GoodState(step, changing_weights(model),
                              copy.deepcopy(optimizer.state_dict()), _copy_state(state),
                              rng_state(model_device(model)), tokens_seen)

    def roll_back(self, step: int, reason: str, model, optimizer,
                  to_best: bool = False) -> GoodState:
        """Restore the last good copy (or the best validation's) and halve the rate; raise
        after MAX_TRIES."""
        if to_best and self.best is not None:
            self.good = self.best
        self.recent.clear()
        self.interval = []
        self.validations = []
        self.tries += 1
        self.failed_step = max(self.failed_step, step)
        if self.tries > MAX_TRIES or self.good is None:
            raise UserFacingError(
                f"Training diverged at step {step} ({reason}) {MAX_TRIES} times, even after "
                f"halving the learning rate each time. Lower the learning rate, set a gradient "
                "clip, or use a smaller model, then start again.")
        self.lr_scale *= 0.5
        restore_weights(model, self.good.model)
        optimizer.load_state_dict(self.good.optimizer)
        set_rng_state(self.good.rng, model_device(model))
        return self.good


def _frozen_names(model) -> set[str]:
    return {name for name, p in model.named_parameters(remove_duplicate=False)
            if not p.requires_grad}


def changing_weights(model) -> dict[str, torch.Tensor]:
    """A copy of what a step can change: the trainable parameters and the buffers. Frozen
    weights never change, so they are not copied: in a LoRA run that is the whole pretrained
    model, which two copies (the last good state and the best validation's) tripled in memory."""
    frozen = _frozen_names(model)
    return {name: tensor.detach().clone() for name, tensor in model.state_dict().items()
            if name not in frozen}


def restore_weights(model, saved: dict[str, torch.Tensor]) -> None:
    """Load a `changing_weights` copy back; the frozen weights are the ones already there."""
    missing, unexpected = model.load_state_dict(saved, strict=False)
    stray = set(missing) - _frozen_names(model)
    if stray or unexpected:  # a bug, not a user's error: the copy and the model disagree
        raise RuntimeError(f"The rollback copy does not fit the model (missing "
                           f"{sorted(stray)[:3]}, unexpected {sorted(unexpected)[:3]}).")
