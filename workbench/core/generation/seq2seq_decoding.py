"""Decoding a sequence-to-sequence model: from <bos> to <eos>, greedily or by beam search.

Both walk the model's `begin`/`step` (the seeds' decoding walkthrough, 003:L1655-1693: <SOS> →
"Jane" → … → <EOS>, each output fed back as the next input):

- greedy: y_i = argmax_y p(y | y_<i, x) for a whole batch at once, each row stopping at its
  own <eos> (validation's exact match, the console's "greedy");
- beam search [NOT IN SEEDS]: keep the `width` best prefixes by log-probability, finished ones
  ranked by log p / length^α (α = length penalty, 0 = none).

Both return, per output token, its probability, the top alternatives and the attention row over
the source, so the console can show why each token came out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import torch

from workbench.core.corpus.tokenizers import BOS, EOS


@dataclass
class Decoded:
    """One output sequence (without <bos>, ending with <eos> when one was produced)."""

    tokens: list[int]
    probabilities: list[float] = field(default_factory=list)  # p of each chosen token
    alternatives: list[list[tuple[int, float]]] = field(default_factory=list)  # top-k per step
    attention: list[np.ndarray] = field(default_factory=list)  # (S,) per step, or empty
    log_prob: float = 0.0

    @property
    def finished(self) -> bool:
        return bool(self.tokens) and self.tokens[-1] == EOS

    def ids(self) -> list[int]:
        """The tokens without the closing <eos>."""
        return self.tokens[:-1] if self.finished else list(self.tokens)

    def copy(self) -> Decoded:
        return Decoded(list(self.tokens), list(self.probabilities), list(self.alternatives),
                       list(self.attention), self.log_prob)


@torch.no_grad()
def greedy_batch(model, source: torch.Tensor, source_mask: torch.Tensor, max_length: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Greedy outputs of a batch: ids (B, L) padded after <eos> with <eos>, and each row's
    length up to and including its <eos> (max_length when none came)."""
    memory, state = model.begin(source, source_mask)
    batch = source.shape[0]
    tokens = torch.full((batch,), BOS, dtype=torch.long, device=source.device)
    done = torch.zeros(batch, dtype=torch.bool, device=source.device)
    lengths = torch.full((batch,), max_length, dtype=torch.long, device=source.device)
    out = []
    for i in range(max_length):
        logits, state, _ = model.step(memory, state, tokens)
        tokens = torch.where(done, EOS, logits.argmax(-1))
        out.append(tokens)
        ended = (tokens == EOS) & ~done
        lengths[ended] = i + 1
        done |= ended
        if bool(done.all()):
            break
    return torch.stack(out, dim=1).cpu().numpy(), lengths.cpu().numpy()


def _top(probs: torch.Tensor, k: int) -> list[tuple[int, float]]:
    values, ids = probs.topk(min(k, probs.shape[-1]))
    return [(int(i), float(v)) for i, v in zip(ids.tolist(), values.tolist(), strict=True)]


@torch.no_grad()
def greedy_steps(model, source: torch.Tensor, max_length: int, top_k: int = 5
                 ) -> Iterator[Decoded]:
    """Greedy decoding of one source (1, S), yielding the growing output after each token."""
    mask = torch.ones_like(source, dtype=torch.bool)
    memory, state = model.begin(source, mask)
    decoded = Decoded([])
    token = torch.tensor([BOS], device=source.device)
    for _ in range(max_length):
        logits, state, weights = model.step(memory, state, token)
        probs = torch.softmax(logits[0].float(), dim=-1)
        choice = int(probs.argmax())
        decoded.tokens.append(choice)
        decoded.probabilities.append(float(probs[choice]))
        decoded.alternatives.append(_top(probs, top_k))
        decoded.attention.append(np.zeros(0) if weights is None else weights[0].cpu().numpy())
        decoded.log_prob += float(torch.log(probs[choice]))
        yield decoded.copy()
        if choice == EOS:
            return
        token = torch.tensor([choice], device=source.device)


def _rank(beam: Decoded, length_penalty: float) -> float:
    return beam.log_prob / max(len(beam.tokens), 1) ** length_penalty


@torch.no_grad()
def beam_steps(model, source: torch.Tensor, width: int, max_length: int,
               length_penalty: float = 1.0, top_k: int = 5) -> Iterator[Decoded]:
    """Beam search over one source (1, S); yields the leading hypothesis after each step and
    last the best finished one (or the best unfinished one at `max_length`)."""
    mask = torch.ones_like(source, dtype=torch.bool)
    memory, state = model.begin(source, mask)
    beams, finished = [Decoded([])], []
    tokens = torch.tensor([BOS], device=source.device)
    for _ in range(max_length):
        rows = len(beams)
        expanded = type(memory)(*(None if t is None else t.expand(rows, *t.shape[1:])
                                  for t in (memory.states, memory.mask, memory.keys)))
        logits, state, weights = model.step(expanded, state, tokens)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (rows, V)
        totals = torch.tensor([b.log_prob for b in beams], device=logits.device)[:, None]
        flat = (totals + log_probs).flatten()
        best = flat.topk(min(2 * width, flat.numel()))
        candidates, keep = [], []
        for score, index in zip(best.values.tolist(), best.indices.tolist(), strict=True):
            row, choice = divmod(index, log_probs.shape[1])
            probs = log_probs[row].exp()
            beam = beams[row]
            grown = Decoded(beam.tokens + [choice], beam.probabilities + [float(probs[choice])],
                            beam.alternatives + [_top(probs, top_k)],
                            beam.attention + [np.zeros(0) if weights is None
                                              else weights[row].cpu().numpy()], score)
            if choice == EOS:
                finished.append(grown)
            elif len(candidates) < width:
                candidates.append(grown)
                keep.append(row)
        finished.sort(key=lambda b: _rank(b, length_penalty), reverse=True)
        if not candidates or (len(finished) >= width and _rank(finished[0], length_penalty)
                              >= max(_rank(c, length_penalty) for c in candidates)):
            break
        beams = candidates
        state = model.reorder(state, torch.tensor(keep, device=source.device))
        tokens = torch.tensor([b.tokens[-1] for b in beams], device=source.device)
        yield beams[0]
    pool = finished or beams
    yield max(pool, key=lambda b: _rank(b, length_penalty))
