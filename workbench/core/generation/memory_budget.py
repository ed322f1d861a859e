"""The memory one generation needs, estimated before the first model call.

Opening a checkpoint budgets its weights (model_budget.py); what a generation adds grows
with what it reads at once: a recurrent model reads the whole prompt in one call (a pasted
book is one sequence of a million positions), a transformer its last `context_length`
tokens at every step, and beam search does either for each beam. Each call keeps, for the
layer it is in, the values of every position (a transformer also its scores, heads × T²),
and the output layer's logits for every position. Without a budget, a long prompt or a wide
beam on a big model ended in the allocator's raw error, or the system killed the app.

No backward pass runs, so one layer's values live at a time (training keeps them all:
activation_budget.py); the estimate is an upper bound of that, like the training one.
"""

from __future__ import annotations

from typing import Any

from workbench.core.jobs import UserFacingError
from workbench.core.training.activation_budget import FLOAT, Dims, dims_of
from workbench.core.training.model_budget import FREE_SHARE, available_memory_bytes

FORWARD_WIDTH_VALUES = 6  # a block's input, q, k, v, attention output, residual sum
FORWARD_SCORE_VALUES = 2  # scores and their softmax


def forward_bytes(dims: Dims, rows: int, positions: int) -> int:
    """Bytes live during one forward call on `rows` sequences of `positions` tokens."""
    cells = rows * positions
    if dims.heads:
        layer = cells * (FORWARD_WIDTH_VALUES * dims.width + dims.d_ff)
        layer += FORWARD_SCORE_VALUES * rows * dims.heads * positions * positions
    else:  # the fused kernels keep each layer's output sequence and its gates
        layer = cells * dims.width * dims.directions * (dims.per_unit + 1)
    total = layer + cells * (dims.embedding or dims.width) + 2 * cells * dims.vocab
    return FLOAT * total


def longest_call(model_config: Any, prompt_tokens: int, new_tokens: int) -> int:
    """The most positions one call reads: the prompt at once, then a transformer's window."""
    context = int(getattr(model_config, "context_length", 0) or 0)
    if not context:
        return max(prompt_tokens, 1)
    return max(1, min(prompt_tokens + new_tokens, context))


def check_generation_memory(model_config: Any, prompt_tokens: int, new_tokens: int,
                            beams: int = 1) -> None:
    """`UserFacingError` with the estimate, the memory free and the longest prompt that
    fits, when one generation call would take more than FREE_SHARE of the free memory."""
    dims = dims_of(model_config)
    if dims is None:
        return
    positions = longest_call(model_config, prompt_tokens, new_tokens)
    need = forward_bytes(dims, beams, positions)
    free = available_memory_bytes()
    room = int(FREE_SHARE * free)
    if need <= room:
        return
    fits = 1
    while fits * 2 <= positions and forward_bytes(dims, beams, fits * 2) <= room:
        fits *= 2
    beam = f" with {beams} beams" if beams > 1 else ""
    advice = (f"a prompt of about {fits:,} tokens fits" if forward_bytes(dims, beams, fits)
              <= room else "even one token does not fit: close other programs")
    raise UserFacingError(
        f"Generating{beam} after a prompt of {prompt_tokens:,} tokens reads {positions:,} "
        f"positions at once and needs about {_size(need)}, but only {_size(free)} of memory "
        f"is free; {advice}. Shorten the prompt" + (", lower the beam width" if beams > 1
                                                   else "") + " or use a smaller model.")


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GB" if count >= 2**30 else f"{count / 2**20:.0f} MB"
