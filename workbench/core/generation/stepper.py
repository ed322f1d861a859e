"""Feed a language model one token at a time, for one sequence or for a batch of beams.

The stepper feeds the prompt once, then one token per step, carrying the model's recurrent
state (a model that returns no state, such as a transformer without a cache, re-reads its last
`context` tokens each step). With a clamp (a recurrent unit or an attention head fixed to a
value) every step runs through the model's `forward_clamped`.

Beam search steps all its beams as one batch: one model call per token whatever the width,
each beam's state (or window) taken from the beam it extends.
"""

from __future__ import annotations

from typing import Any

import torch

from workbench.core.generation.decoding import all_finite
from workbench.core.jobs import UserFacingError

NOT_NUMBERS = (
    "The model's outputs are not numbers (NaN or infinity), so it cannot generate: its weights "
    "are damaged or training had diverged when this snapshot was taken. Open another "
    "checkpoint (the run's best) or train again with a lower learning rate.")


def refuse_if_not_finite(logits: torch.Tensor) -> None:
    """NaN or infinite outputs cannot be sampled from: say so, instead of a sampler failing
    deep inside (or greedy decoding writing nonsense)."""
    if not all_finite(logits):
        raise UserFacingError(NOT_NUMBERS)


def select_rows(state: Any, rows: torch.Tensor) -> Any:
    """The state of the batch rows `rows` (a model state: None, a tensor (layers, B, H), or a
    tuple of them)."""
    if state is None:
        return None
    if isinstance(state, torch.Tensor):
        return state.index_select(1, rows)
    return tuple(select_rows(part, rows) for part in state)


class ModelStepper:
    """`start(prompt ids)` gives the logits (V,) after the prompt; `step(token)` feeds one
    token and gives the next logits. `start_beams` and `step_beams` do the same for a batch of
    beams (logits (B, V)). Only the newest logits are kept: the state lives here."""

    def __init__(self, model: Any, clamp: dict | None = None, context: int = 256) -> None:
        self.model = model
        self.clamp = clamp
        limit = getattr(getattr(model, "config", None), "context_length", 0) or context
        self.context = int(limit)
        self.stateful = True  # until the model returns no state after the prompt
        self.state: Any = None
        self.window: list[int] = []  # a stateless model's last `context` ids
        self.windows: torch.Tensor | None = None  # the same for each beam (B, T)
        self.token = torch.zeros(1, 1, dtype=torch.long)
        # a transformer keeps its keys and values (transformer_cache.py) while the window has
        # room; a clamp runs through the transparent trace instead
        self.cache: Any = None
        self.cached = clamp is None and hasattr(model, "forward_cached")

    def _run(self, tokens: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        with torch.no_grad():
            if self.clamp is None:
                return self.model(tokens, state)
            return self.model.forward_clamped(tokens, state, self.clamp)

    # --- one sequence ------------------------------------------------------------------------

    def _read_window(self, windows: torch.Tensor) -> torch.Tensor:
        """Logits (B, T, V) of whole windows; a cached model keeps their keys and values."""
        if self.cached:
            with torch.no_grad():
                logits, self.cache = self.model.forward_cached(windows, None)
            return logits
        return self._run(windows, None)[0]

    def _extend(self, column: torch.Tensor) -> torch.Tensor | None:
        """Logits (B, V) of one more token per row read through the cache; None when the
        window is full (the caller then re-reads the last `context` tokens)."""
        if not self.cached or self.cache is None or self.cache.length >= self.context:
            return None
        with torch.no_grad():
            logits, self.cache = self.model.forward_cached(column, self.cache)
        return logits[:, -1]

    def start(self, prompt_ids: list[int]) -> torch.Tensor:
        self.window = list(prompt_ids[-self.context:])
        if self.cached:
            logits = self._read_window(torch.tensor([self.window]))[0, -1]
            self.stateful = False
            refuse_if_not_finite(logits)
            return logits
        logits, self.state = self._run(torch.tensor([self.window]), None)
        self.stateful = self.state is not None
        logits = logits[0, -1]
        refuse_if_not_finite(logits)
        return logits

    def step(self, token: int) -> torch.Tensor:
        if self.stateful:
            # the token goes in a tensor kept for it: filling one costs a fifth of making one
            logits, self.state = self._run(self.token.fill_(token), self.state)
            return logits.reshape(-1)
        self.window.append(token)
        if len(self.window) > self.context:
            del self.window[0]
        extended = self._extend(self.token.fill_(token))
        if extended is not None:
            return extended.reshape(-1)
        return self._read_window(torch.tensor([self.window]))[0, -1]

    # --- a batch of beams --------------------------------------------------------------------

    def start_beams(self, prompt_ids: list[int]) -> torch.Tensor:
        """Logits (1, V) after the prompt: the one beam the search starts from."""
        logits = self.start(prompt_ids)[None]
        self.windows = torch.tensor([self.window])
        return logits

    def step_beams(self, parents: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """Beam b extends beam `parents[b]` of the last step by `tokens[b]`: logits (B, V)."""
        column = tokens.unsqueeze(1)
        if self.stateful:
            logits, self.state = self._run(column, select_rows(self.state, parents))
            return logits.select(1, -1)
        windows = torch.cat([self.windows.index_select(0, parents), column], dim=1)
        self.windows = windows[:, -self.context:]
        if self.cache is not None:
            self.cache = self.cache.select(parents)
        extended = self._extend(column)
        if extended is not None:
            return extended
        return self._read_window(self.windows).select(1, -1)
