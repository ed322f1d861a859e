"""Beam search with all beams stepped as one batch (Wu et al. 2016's length penalty).

Beam search is not in the seeds (SEEDS.md 2.8 D5). Each token, every live beam's `width` most
likely extensions compete with the beams already finished (end token or stop sequence), by
log P / length^α, and the `width` best go on. The live beams are one batch: one model call per
token, as a plain torch beam search does it, instead of one call per beam.

Beams are not copied: each step records, for every beam, which beam it extends and with which
token, so a step costs the same at token 5,000 as at token 5, and the best beam's tokens are
read back once at the end. The hover read-out of the tokens (probability, rank, entropy,
alternatives) is computed for blocks of steps at a time and kept only as its top few values.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

import torch

from workbench.core.generation.decoding import Details
from workbench.core.generation.stepper import refuse_if_not_finite
from workbench.core.jobs import run_to_end

# (parents (B,), tokens (B,)) -> next logits (B, V): beam b extends beam parents[b] by tokens[b]
BatchStep = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
DETAIL_BLOCK = 64  # steps whose read-out is computed together
CARRIED = -1  # the "token" of a finished beam carried to the next step unchanged


@dataclass(frozen=True)
class Hypothesis:
    """One beam at the end: its tokens, log P, and score log P / length^α."""

    tokens: list[int]
    log_prob: float
    score: float
    slot: int  # its place among the last step's beams


def length_normalised(log_prob: float, length: int, alpha: float) -> float:
    """Beam score log P / length^α (α = 0: raw log probability, which favours short outputs)."""
    return log_prob / (max(length, 1) ** alpha)


class BeamSearch:
    """`run()` is a generator: it yields after each token (so a job can report, and be
    stopped, between tokens) and returns the hypotheses, best first."""

    def __init__(self, first_logits: torch.Tensor, step: BatchStep, width: int, max_tokens: int,
                 length_penalty: float = 1.0, eos_id: int | None = None,
                 should_stop: Callable[[list[int]], bool] | None = None, tail: int = 0,
                 alternatives: int = 5) -> None:
        if width < 1:
            raise ValueError(f"Beam width must be at least 1 (got {width}).")
        self.logits, self.step_fn = first_logits, step
        self.width, self.max_tokens, self.alpha = width, max_tokens, float(length_penalty)
        self.eos_id, self.should_stop, self.tail = eos_id, should_stop, tail
        self.log_probs = torch.zeros(1)
        self.lengths, self.finished = [0], [False]
        # per step: which beam of the step before each beam extends, and by which token
        self.parents: list[list[int]] = []
        self.tokens: list[list[int]] = []
        # the read-out keeps a distribution's top entries: all that can beat a chosen token
        self.top = max(width, alternatives)
        self._block: list[tuple[torch.Tensor, torch.Tensor]] = []  # (log p, chosen log p)
        self._read_out: list[tuple[torch.Tensor, ...]] = []  # entropy, top ids, top log p, chosen
        # where each step's rows start: its beams' distributions, and what the new beams took
        self.offsets: list[tuple[int, int]] = []
        self._rows = (0, 0)
        self._fed: tuple[torch.Tensor, torch.Tensor] = ()  # (parents, tokens) for the model

    @property
    def leader_length(self) -> int:
        return self.lengths[0]

    def run(self) -> Generator[None, None, list[Hypothesis]]:
        for index in range(self.max_tokens):
            self._choose()
            if all(self.finished) or index + 1 == self.max_tokens:
                break
            self.logits = self.step_fn(*self._fed)
            yield
        return self.hypotheses()

    def _choose(self) -> None:
        log_p = torch.log_softmax(self.logits.float(), -1)  # (B, V): a row per beam
        extended = log_p + self.log_probs.unsqueeze(1)  # log P of every extension
        if False in self.finished and True in self.finished:
            chosen = self._choose_among_finished(extended)
        else:
            chosen = self._extend_all(extended)
        if self.should_stop is not None:
            for slot, token in enumerate(self.tokens[-1]):
                if token != CARRIED and not self.finished[slot]:
                    self.finished[slot] = self.should_stop(self.last_tokens(slot, self.tail))
        self._keep_read_out(log_p, torch.take(log_p, chosen))

    def _extend_all(self, extended: torch.Tensor) -> torch.Tensor:
        """Every beam is live and as long as the others: normalising by length changes no
        order, and the best `width` extensions are found with tensor operations alone, as
        in a plain torch beam search. Returns them as indices into `extended`."""
        vocab = extended.shape[-1]
        scores, chosen = torch.topk(extended.reshape(-1), min(self.width, extended.numel()))
        parents = torch.div(chosen, vocab, rounding_mode="floor")
        tokens = chosen - parents * vocab
        token_list = tokens.tolist()
        self.parents.append(parents.tolist()), self.tokens.append(token_list)
        self.log_probs, self.lengths = scores, [self.lengths[0] + 1] * len(token_list)
        self.finished = [token == self.eos_id for token in token_list]
        self._fed = (parents, tokens)
        return chosen

    def _choose_among_finished(self, extended: torch.Tensor) -> torch.Tensor:
        """Live beams' extensions, normalised by their common length, and finished beams, each
        by its own length, compete for the `width` places."""
        size, vocab = extended.numel(), extended.shape[-1]
        live = self.finished.count(False)
        done = torch.tensor(self.finished)
        grown = self.lengths[self.finished.index(False)] + 1
        scores = torch.cat([
            extended.masked_fill(done[:, None], float("-inf")).reshape(-1) / grown ** self.alpha,
            torch.where(done, self.log_probs / torch.tensor(
                [max(n, 1) ** self.alpha for n in self.lengths]), float("-inf"))])
        count = min(self.width, live * vocab + len(self.finished) - live)
        chosen = torch.topk(scores, count).indices
        raw = torch.cat([extended.reshape(-1), self.log_probs])[chosen]
        parents, tokens, lengths, finished, flat = [], [], [], [], chosen.tolist()
        for index in flat:
            if index >= size:  # a finished beam carried on
                parent = index - size
                parents.append(parent), tokens.append(CARRIED)
                lengths.append(self.lengths[parent]), finished.append(True)
                continue
            parent, token = divmod(index, vocab)
            parents.append(parent), tokens.append(token)
            lengths.append(self.lengths[parent] + 1), finished.append(token == self.eos_id)
        self.parents.append(parents), self.tokens.append(tokens)
        self.log_probs, self.lengths, self.finished = raw, lengths, finished
        # a carried beam is fed anything: its next logits are not used
        self._fed = (torch.tensor(parents), torch.tensor([max(t, 0) for t in tokens]))
        return torch.tensor([index if index < size else 0 for index in flat])

    def _keep_read_out(self, log_p: torch.Tensor, chosen_log_p: torch.Tensor) -> None:
        self.offsets.append(self._rows)
        self._rows = (self._rows[0] + log_p.shape[0], self._rows[1] + chosen_log_p.shape[0])
        self._block.append((log_p, chosen_log_p))
        if len(self._block) >= DETAIL_BLOCK:
            self._summarise_block()

    def _summarise_block(self) -> None:
        """Keep of the block's distributions only what the read-out shows."""
        if not self._block:
            return
        log_p = torch.cat([lp for lp, _ in self._block])
        refuse_if_not_finite(log_p)  # NaN logits would have ranked beams as nonsense
        chosen = torch.cat([lp for _, lp in self._block])  # a value per beam of each step
        top_log_p, top_ids = torch.topk(log_p, min(self.top, log_p.shape[-1]), dim=-1)
        entropy = torch.special.entr(log_p.exp()).sum(-1)
        self._read_out.append((entropy, top_ids, top_log_p, chosen))
        self._block = []

    def last_tokens(self, slot: int, n: int) -> list[int]:
        """The last `n` tokens of beam `slot` of the latest step (fewer when it is shorter)."""
        out: list[int] = []
        for step in range(len(self.tokens) - 1, -1, -1):
            if len(out) >= n:
                break
            if self.tokens[step][slot] != CARRIED:
                out.append(self.tokens[step][slot])
            slot = self.parents[step][slot]
        return out[::-1]

    def hypotheses(self) -> list[Hypothesis]:
        log_probs = self.log_probs.tolist()
        found = [Hypothesis(self.last_tokens(slot, self.lengths[slot]), log_probs[slot],
                            length_normalised(log_probs[slot], self.lengths[slot], self.alpha),
                            slot) for slot in range(len(self.lengths))]
        return sorted(found, key=lambda h: -h.score)

    def details(self, hypothesis: Hypothesis, alternatives: int = 5) -> Details:
        """The read-out of each token of `hypothesis`, from the distribution it was chosen in
        (its parent beam's, at temperature 1)."""
        self._summarise_block()
        entropy, top_ids, top_log_p, chosen = (torch.cat(parts) for parts in
                                               zip(*self._read_out, strict=True))
        rows, picks, slot = [], [], hypothesis.slot
        for step in range(len(self.tokens) - 1, -1, -1):
            parent = self.parents[step][slot]
            if self.tokens[step][slot] != CARRIED:
                rows.append(self.offsets[step][0] + parent)  # the parent's distribution
                picks.append(self.offsets[step][1] + slot)  # what this beam took from it
            slot = parent
        rows, picks = torch.tensor(rows[::-1]), torch.tensor(picks[::-1])
        picked, top_log_p = chosen[picks], top_log_p[rows]
        # fewer than `width` tokens beat a chosen one: the top list holds them all
        rank = (top_log_p > picked[:, None]).sum(-1)
        return Details(picked.exp().tolist(), entropy[rows].tolist(), rank.tolist(),
                       top_ids[rows, :alternatives].tolist(),
                       top_log_p[:, :alternatives].exp().tolist())


def beam_search(first_logits: torch.Tensor, step: BatchStep, width: int, max_tokens: int,
                length_penalty: float = 1.0, eos_id: int | None = None) -> list[Hypothesis]:
    """A search run to the end: the hypotheses, best first."""
    return run_to_end(BeamSearch(first_logits, step, width, max_tokens, length_penalty,
                                 eos_id).run())
