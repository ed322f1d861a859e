"""Validation loss, sampled text, and the model hooks (build and snapshot) the trainer uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.training.setup import autocast, state_to

SAMPLE_TEMPERATURE = 0.8  # a little colder than the model, so early samples are readable


@dataclass
class ModelHooks:
    """How the trainer builds a model and snapshots it; tests hand in tiny models."""

    build: Callable
    snapshot: Callable  # (model, tokenizer_dict, step, metrics, run_name) -> Snapshot

    @staticmethod
    def default() -> ModelHooks:
        from workbench.core.models import build_model
        from workbench.core.snapshot.rebuild import snapshot_of

        return ModelHooks(build_model, snapshot_of)


@torch.no_grad()
def evaluate(model, windows: list[tuple[np.ndarray, np.ndarray]], device, amp: bool) -> float:
    """Mean cross-entropy (nats per token) over the validation windows, carrying the state
    from window to window (stateless models return None and start fresh each time)."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    state = state_to(model.init_state(windows[0][0].shape[0]), device)
    try:
        for x, y in windows:
            inputs = torch.from_numpy(x).to(device)
            targets = torch.from_numpy(y).to(device)
            with autocast(device, amp):
                logits, state = model(inputs, state)  # (B, T, V)
            total += float(F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                           targets.reshape(-1), reduction="sum"))
            count += targets.numel()
    finally:
        model.train(was_training)
    return total / max(count, 1)


@torch.no_grad()
def sample_text(model, tokenizer, prompt: list[int], length: int, stateful: bool,
                context: int, seed: int, device) -> str:
    """Prompt + a sampled continuation. A stateful model reads one new token at a time with its
    state; a stateless one re-reads the last `context` tokens. A private generator keeps the
    training RNG (dropout) untouched, so sampling does not change the training curve."""
    was_training = model.training
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    ids = list(prompt)
    try:
        tokens = torch.tensor([ids[-context:]], device=device)
        logits, state = model(tokens, state_to(model.init_state(1), device))
        for _ in range(length):
            probs = torch.softmax(logits[0, -1].float().cpu() / SAMPLE_TEMPERATURE, dim=-1)
            next_id = int(torch.multinomial(probs, 1, generator=generator))
            ids.append(next_id)
            if stateful:
                logits, state = model(torch.tensor([[next_id]], device=device), state)
            else:
                logits, _ = model(torch.tensor([ids[-context:]], device=device), None)
    finally:
        model.train(was_training)
    return tokenizer.decode(ids)
