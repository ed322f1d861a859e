"""Decoding strategies as pure functions on next-token logits (numpy, seeded RNG).

The seeds describe autoregressive sampling from the softmax and picking the most likely token
(SEEDS.md 2.8 D1, D2). Temperature, top-k, top-p (nucleus) and beam search with a length
penalty are not in the seeds (D5); they follow Holtzman et al. 2020 and Wu et al. 2016.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.jobs import run_to_end


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """p_i = exp(z_i / T) / sum_j exp(z_j / T), computed stably in float64."""
    if temperature <= 0:
        raise ValueError(f"Temperature must be positive (got {temperature}).")
    z = np.asarray(logits, dtype=np.float64) / temperature
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = np.asarray(logits, dtype=np.float64)
    z = z - np.max(z, axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def entropy(probs: np.ndarray) -> float:
    """H(p) = -sum p log p in nats (0 log 0 taken as 0)."""
    p = np.asarray(probs, dtype=np.float64)
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum())


def rank_of(probs: np.ndarray, token: int) -> int:
    """How many tokens are strictly more likely than `token` (0 = the argmax)."""
    return int((probs > probs[token]).sum())


def top_alternatives(probs: np.ndarray, n: int) -> list[tuple[int, float]]:
    """The n most likely token ids with their probabilities, most likely first."""
    n = min(n, probs.shape[-1])
    idx = np.argpartition(-probs, n - 1)[:n]
    idx = idx[np.argsort(-probs[idx], kind="stable")]
    return [(int(i), float(probs[i])) for i in idx]


def greedy(logits: np.ndarray) -> int:
    """The most likely token (argmax; ties go to the lowest id)."""
    return int(np.argmax(logits))


def filter_top_k(probs: np.ndarray, k: int) -> np.ndarray:
    """Keep the k most likely tokens and renormalise (ties at the k-th value are all kept out
    beyond k, so never more than k tokens survive)."""
    if k < 1:
        raise ValueError(f"Top k must be at least 1 (got {k}).")
    if k >= probs.shape[-1]:
        return probs
    keep = np.argsort(-probs, kind="stable")[:k]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()


def filter_top_p(probs: np.ndarray, p: float) -> np.ndarray:
    """Keep the smallest set of most likely tokens whose mass reaches p, and renormalise."""
    if not 0 < p <= 1:
        raise ValueError(f"Top p must be in (0, 1] (got {p}).")
    order = np.argsort(-probs, kind="stable")
    cumulative = np.cumsum(probs[order])
    # the first index where the mass reaches p is the last token kept
    last = int(np.searchsorted(cumulative, p - 1e-12))
    keep = order[: last + 1]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()


def sampling_distribution(logits: np.ndarray, strategy: str, temperature: float = 1.0,
                          top_k: int = 0, top_p: float = 1.0) -> np.ndarray:
    """The distribution a strategy draws from (one-hot for greedy)."""
    if strategy == "greedy":
        out = np.zeros(np.shape(logits)[-1])
        out[greedy(logits)] = 1.0
        return out
    probs = softmax(logits, temperature)
    if strategy == "top-k":
        return filter_top_k(probs, top_k)
    if strategy == "top-p":
        return filter_top_p(probs, top_p)
    if strategy == "sample":
        return probs
    raise ValueError(f"Unknown strategy '{strategy}' for token-by-token decoding.")


def draw(probs: np.ndarray, rng: np.random.Generator) -> int:
    """One token from `probs` by inverse CDF (deterministic for a given generator state)."""
    cumulative = np.cumsum(probs)
    u = rng.random() * cumulative[-1]
    return int(min(np.searchsorted(cumulative, u, side="right"), len(probs) - 1))


# --- beam search ---------------------------------------------------------------------------

StepFn = Callable[[Any, int], tuple[np.ndarray, Any]]  # (state, token) -> (logits, new state)


@dataclass
class Beam:
    """One continuation. It keeps its parent and its last token instead of a copy of every
    token so far, so extending a beam costs the same at token 5,000 as at token 5."""

    token: int | None  # the last token (None for the empty beam the search starts from)
    log_prob: float
    state: Any
    logits: np.ndarray  # next-token logits after `tokens`
    finished: bool = False
    parent: Beam | None = None
    came_from: np.ndarray | None = None  # the logits `token` was chosen from
    length: int = 0

    def _chain(self) -> list[Beam]:
        chain, beam = [], self
        while beam is not None and beam.token is not None:
            chain.append(beam)
            beam = beam.parent
        return chain[::-1]

    @property
    def tokens(self) -> list[int]:
        return [beam.token for beam in self._chain()]

    @property
    def steps(self) -> list[np.ndarray]:
        """The logits each token came from."""
        return [beam.came_from for beam in self._chain()]

    def last_tokens(self, n: int) -> list[int]:
        """The last `n` tokens (fewer when the beam is shorter), in order."""
        out, beam = [], self
        while beam is not None and beam.token is not None and len(out) < n:
            out.append(beam.token)
            beam = beam.parent
        return out[::-1]


def length_normalised(log_prob: float, length: int, alpha: float) -> float:
    """Beam score log P / length^α (α = 0: raw log probability, which favours short outputs)."""
    return log_prob / (max(length, 1) ** alpha)


def beam_search(first_logits: np.ndarray, first_state: Any, step: StepFn, width: int,
                max_tokens: int, length_penalty: float = 1.0,
                eos_id: int | None = None,
                should_stop: Callable[[Beam], bool] | None = None) -> list[Beam]:
    """`beam_search_steps` run to the end: the beams, best first."""
    steps = beam_search_steps(first_logits, first_state, step, width, max_tokens,
                              length_penalty, eos_id, should_stop)
    return run_to_end(steps)


def _ranked(beams: list[Beam], length_penalty: float) -> list[Beam]:
    return sorted(beams, key=lambda b: -length_normalised(b.log_prob, b.length,
                                                           length_penalty))


def beam_search_steps(first_logits: np.ndarray, first_state: Any, step: StepFn, width: int,
                      max_tokens: int, length_penalty: float = 1.0,
                      eos_id: int | None = None,
                      should_stop: Callable[[Beam], bool] | None = None
                      ) -> Generator[Beam, None, list[Beam]]:
    """Keep the `width` best continuations by length-normalised log probability.

    `step(state, token)` feeds one token and returns the next logits and state. A beam ends
    when it emits `eos_id`, when `should_stop(beam)` says so, or at `max_tokens`. Yields the
    best beam after each token (so a job can report, and be stopped, between them); returns the
    beams best first.
    """
    if width < 1:
        raise ValueError(f"Beam width must be at least 1 (got {width}).")
    beams = [Beam(None, 0.0, first_state, np.asarray(first_logits))]
    for _ in range(max_tokens):
        candidates: list[tuple[float, Beam, int, float]] = []
        for beam in beams:
            if beam.finished:
                candidates.append((beam.log_prob, beam, -1, 0.0))
                continue
            logp = log_softmax(beam.logits)
            best = np.argsort(-logp, kind="stable")[:width]
            for token in best:
                candidates.append((beam.log_prob + float(logp[token]), beam, int(token), 0.0))
        candidates.sort(key=lambda c: -length_normalised(
            c[0], c[1].length + (c[2] >= 0), length_penalty))
        next_beams: list[Beam] = []
        for log_prob, parent, token, _ in candidates[:width]:
            if token < 0:
                next_beams.append(parent)
                continue
            beam = Beam(token, log_prob, parent.state, parent.logits, False, parent,
                        parent.logits, parent.length + 1)
            beam.finished = (eos_id is not None and token == eos_id) or (
                should_stop is not None and should_stop(beam))
            if not beam.finished:
                logits, beam.state = step(parent.state, token)
                beam.logits = np.asarray(logits)
            next_beams.append(beam)
        beams = next_beams
        if all(b.finished for b in beams):
            break
        yield _ranked(beams, length_penalty)[0]
    return _ranked(beams, length_penalty)
