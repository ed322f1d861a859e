"""Learning-rate schedules as a pure function of the step, so resume needs no scheduler state.

`lr_at(config, step, scale)` is the rate of optimiser step `step` (0-based). `scale` is what the
divergence guard multiplies in (halved after each rollback).
- constant: η;
- cosine: linear warm-up from η/warmup to η over `warmup_steps`, then cosine decay to
  `COSINE_FLOOR`·η at `max_steps` (Loshchilov & Hutter's SGDR without restarts);
- step: the same warm-up, then η·gamma^⌊(step - warmup)/step_size⌋.
"""

from __future__ import annotations

import math

from workbench.core.config.training import TrainingConfig

COSINE_FLOOR = 0.1


def lr_at(config: TrainingConfig, step: int, scale: float = 1.0) -> float:
    base = config.lr * scale
    if config.schedule == "constant":
        return base
    warmup = config.warmup_steps
    if step < warmup:
        return base * (step + 1) / warmup
    if config.schedule == "cosine":
        span = max(1, config.max_steps - warmup)
        progress = min(1.0, (step - warmup) / span)
        cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
        return base * (COSINE_FLOOR + (1.0 - COSINE_FLOOR) * cosine)
    if config.schedule == "step":
        return base * config.gamma ** ((step - warmup) // config.step_size)
    raise ValueError(f"Unknown schedule '{config.schedule}'. Choose constant, cosine or step.")
