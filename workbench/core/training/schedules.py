"""Learning-rate schedules as a pure function of the step, so resume needs no scheduler state.

`lr_at(config, step, scale)` is the rate of optimiser step `step` (0-based). `scale` is what the
divergence guard multiplies in (halved after each rollback).
- constant: η;
- cosine: linear warm-up from η/warmup to η over `warmup_steps`, then cosine decay to
  `COSINE_FLOOR`·η at `max_steps` (Loshchilov & Hutter's SGDR without restarts);
- step: the same warm-up, then η·gamma^⌊(step - warmup)/step_size⌋.

With a time budget (`config.minutes` > 0) the cosine decay follows the clock instead of the
step count: its progress is `elapsed_s` / budget, the training time this machine has spent so
far (the trainer's clock: pauses left out, resumed runs continuing theirs). The number of steps
the budget buys is not known in advance, and a schedule fitted to a guessed step count either
ends its decay early or never finishes it (issue 29: nanoGPT's recipe finished its schedule
after 2 of its 8 minutes). The warm-up stays in steps: it is short and about the optimiser's
first updates, not about the time. The decay starts from the first step after warm-up at the
progress the clock reached by then (a percent or two of a budget of minutes), so it is
continuous to within that.
"""

from __future__ import annotations

import math

from workbench.core.config.training import TrainingConfig

COSINE_FLOOR = 0.1


def lr_at(config: TrainingConfig, step: int, scale: float = 1.0,
          elapsed_s: float = 0.0) -> float:
    base = config.lr * scale
    if config.schedule == "constant":
        return base
    warmup = config.warmup_steps
    if step < warmup:
        return base * (step + 1) / warmup
    if config.schedule == "cosine":
        if config.minutes > 0:
            progress = min(1.0, max(0.0, elapsed_s / (60.0 * config.minutes)))
        else:
            progress = min(1.0, (step - warmup) / max(1, config.max_steps - warmup))
        cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
        return base * (COSINE_FLOOR + (1.0 - COSINE_FLOOR) * cosine)
    if config.schedule == "step":
        return base * config.gamma ** ((step - warmup) // config.step_size)
    raise ValueError(f"Unknown schedule '{config.schedule}'. Choose constant, cosine or step.")
