"""Token-by-token decoding on next-token logits, in torch on the model's own dtype.

The seeds describe autoregressive sampling from the softmax and picking the most likely token
(SEEDS.md 2.8 D1, D2). Temperature, top-k and top-p (nucleus) are not in the seeds (D5); they
follow Fan et al. 2018 and Holtzman et al. 2020. Beam search is in `beam.py`.

Why torch and not numpy: a character model's step takes ~300 µs on a CPU core, and the
distribution in float64 numpy, a full argsort for top-k and the hover read-out's entropy, rank
and alternatives computed for each token cost another ~100 µs. Here a token costs a top-k and
a softmax on the model's logits and one inverse-CDF draw, and the read-out is computed for many
tokens at once (`token_details`) when they are sent to the console.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass

import torch

TOKEN_STRATEGIES = ("greedy", "sample", "top-k", "top-p")
# float32 sums of probabilities are off by ~1e-7: a cumulative mass this close to p reaches it
MASS_TOLERANCE = 1e-6
FEW_TOKENS = 256  # up to this many candidates, a draw sums their probabilities in Python


def check_settings(strategy: str, temperature: float, top_k: int, top_p: float) -> None:
    if strategy not in TOKEN_STRATEGIES:
        raise ValueError(f"Unknown strategy '{strategy}' for token-by-token decoding.")
    if temperature <= 0:
        raise ValueError(f"Temperature must be positive (got {temperature}).")
    if strategy == "top-k" and top_k < 1:
        raise ValueError(f"Top k must be at least 1 (got {top_k}).")
    if strategy == "top-p" and not 0 < top_p <= 1:
        raise ValueError(f"Top p must be in (0, 1] (got {top_p}).")


class Sampler:
    """Draws the next token from logits (V,) under a strategy. The draws come from the
    sampler's own generator, seeded: the same seed and logits give the same tokens, whatever
    else uses an RNG meanwhile."""

    def __init__(self, strategy: str, temperature: float = 1.0, top_k: int = 0,
                 top_p: float = 1.0, seed: int = 0) -> None:
        check_settings(strategy, temperature, top_k, top_p)
        self.strategy, self.temperature = strategy, float(temperature)
        self.top_k, self.top_p = int(top_k), float(top_p)
        self.random = random.Random(int(seed))

    def __call__(self, logits: torch.Tensor) -> int:
        if self.strategy == "greedy":
            return int(torch.argmax(logits))  # ties: the lowest id
        z = logits if self.temperature == 1.0 else logits / self.temperature
        if self.strategy == "top-k" and self.top_k < z.shape[-1]:
            values, index = torch.topk(z, self.top_k)
            return int(index[self._draw(torch.softmax(values, -1))])
        if self.strategy == "top-p":
            values, order = torch.sort(z, descending=True)
            probs = torch.softmax(values, -1)
            keep = nucleus_size(probs, self.top_p)
            return int(order[self._draw(probs[:keep])])
        return self._draw(torch.softmax(z, -1))

    def _draw(self, probs: torch.Tensor) -> int:
        """Inverse CDF with one uniform number. `torch.multinomial` does the same job in
        40-60 µs for 40 to 70 tokens (4 ms for 50,000) on this machine's CPU: more than a
        tenth of a character model's step. Few tokens are summed in Python (~5 µs), many
        by `cumsum` and `searchsorted` (~50 µs for 5,000)."""
        u = self.random.random()
        if probs.shape[-1] <= FEW_TOKENS:
            cumulative = list(itertools.accumulate(probs.tolist()))
            index = bisect.bisect_right(cumulative, u * cumulative[-1])
        else:
            cumulative = torch.cumsum(probs, -1)
            index = int(torch.searchsorted(cumulative, u * float(cumulative[-1]), right=True))
        return min(index, probs.shape[-1] - 1)  # u * total rounded up to the total


def nucleus_size(sorted_probs: torch.Tensor, p: float) -> int:
    """How many of the most likely tokens (probabilities sorted, largest first) make the
    smallest set whose mass reaches p."""
    cumulative = torch.cumsum(sorted_probs, -1)
    reached = int(torch.searchsorted(cumulative, torch.tensor([p - MASS_TOLERANCE],
                                                              dtype=cumulative.dtype)))
    return min(reached + 1, sorted_probs.shape[-1])


@dataclass(frozen=True)
class Details:
    """The hover read-out of n tokens, as Python lists: each token's probability, the entropy
    (nats) of the distribution it came from, its rank (0 = most likely; how many tokens were
    strictly more likely) and that distribution's top `ids` with their `probs`."""

    probability: list[float]
    entropy: list[float]
    rank: list[int]
    ids: list[list[int]]
    probs: list[list[float]]


def token_details(logits: torch.Tensor, tokens: list[int], temperature: float = 1.0,
                  alternatives: int = 5) -> Details:
    """`Details` of `tokens[i]` under softmax(logits[i] / T), for the rows of logits (n, V):
    one batch of tensor operations for all n tokens, not n small ones."""
    log_p = torch.log_softmax(logits.float() / temperature, -1)
    chosen = log_p.gather(1, torch.tensor(tokens, dtype=torch.long)[:, None])  # (n, 1)
    rank = (log_p > chosen).sum(-1)
    entropy = torch.special.entr(log_p.exp()).sum(-1)  # -p log p, with 0 log 0 = 0
    top_log_p, top_ids = torch.topk(log_p, min(alternatives, log_p.shape[-1]), dim=-1)
    return Details(chosen[:, 0].exp().tolist(), entropy.tolist(), rank.tolist(),
                   top_ids.tolist(), top_log_p.exp().tolist())


def all_finite(logits: torch.Tensor) -> bool:
    return bool(torch.isfinite(logits).all())
