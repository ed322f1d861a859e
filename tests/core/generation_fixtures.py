"""A tiny fixed language model with known logits, shared by the generation tests."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from workbench.core.corpus.tokenizers import CharTokenizer


def abc_tokenizer() -> CharTokenizer:
    return CharTokenizer(["a", "b", "c", "d"])  # ids 4..7


class BigramModel(nn.Module):
    """Next-token logits depend only on the last token (a fixed table); state counts steps.

    Returns a state (layers, B, 1) like a recurrent model's, so the stepper carries it.
    """

    def __init__(self, table: np.ndarray) -> None:
        super().__init__()
        self.table = torch.tensor(table, dtype=torch.float32)
        self.calls = 0

    def forward(self, tokens, state=None):
        self.calls += 1
        steps = torch.zeros(1, tokens.shape[0], 1) if state is None else state
        logits = self.table[tokens]  # (B, T, V)
        return logits, steps + tokens.shape[1]


def bigram_table(vocab: int = 8, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    table = rng.normal(0, 2, size=(vocab, vocab))
    table[:, :4] = -1e4  # specials never come next (no EOS: length decides)
    return table
