"""Generated tokens to the console in batches, with their hover read-out computed per batch.

A character model's step takes ~300 µs. An event per token (a cross-thread signal, a handler
on the GUI thread) and the read-out of each token computed alone (probability, entropy, rank,
alternatives: a handful of small tensor operations) would add a third to that. So the tokens
wait here for a time slice (the first goes at once, so the first token shows without delay),
and their read-out is one batch of tensor operations over the slice's logits.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

from workbench.core.corpus.text_chunks import Pacer
from workbench.core.events import TokenGenerated, TokensGenerated
from workbench.core.generation.decoding import Details, token_details
from workbench.core.generation.stepper import refuse_if_not_finite

ALTERNATIVES = 5
BATCHES_HZ = 30  # as often as the console redraws
MOST_PER_BATCH = 512  # bounds the logits kept (a BPE vocabulary is tens of thousands wide)


class TokenNames:
    """Each id's readable text, looked up once (a BPE tokenizer decodes to find it)."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer, self.known = tokenizer, {}

    def __call__(self, token: int) -> str:
        name = self.known.get(token)
        if name is None:
            name = self.known[token] = self.tokenizer.readable_token(token)
        return name


def token_events(first_index: int, ids: list[int], pieces: list[str], details: Details,
                 names: TokenNames) -> tuple[TokenGenerated, ...]:
    """The console's record of each token: its text and its read-out."""
    return tuple(
        TokenGenerated(index=first_index + i, token_id=token, text=piece, probability=p,
                       entropy=h, rank=r, alternatives=tuple(
                           (names(a), q) for a, q in zip(top, top_p, strict=True)))
        for i, (token, piece, p, h, r, top, top_p) in enumerate(zip(
            ids, pieces, details.probability, details.entropy, details.rank, details.ids,
            details.probs, strict=True)))


class TokenBatches:
    """`add` each sampled token with its piece of text and the logits it was drawn from; it
    returns a `TokensGenerated` when a batch is due (else None). `flush` sends the rest."""

    def __init__(self, tokenizer, temperature: float, rate: float = BATCHES_HZ) -> None:
        self.names, self.temperature = TokenNames(tokenizer), temperature
        self.pacer = Pacer(rate)  # the first call is due: the first token goes at once
        self.sent = 0
        self.ids: list[int] = []
        self.pieces: list[str] = []
        self.rows: list[torch.Tensor] = []

    def add(self, token: int, piece: str, logits: torch.Tensor) -> TokensGenerated | None:
        self.ids.append(token)
        self.pieces.append(piece)
        self.rows.append(logits)
        if len(self.ids) >= MOST_PER_BATCH or self.pacer.due():
            return self.flush()
        return None

    def flush(self) -> TokensGenerated | None:
        if not self.ids:
            return None
        logits = torch.stack(self.rows)
        refuse_if_not_finite(logits)  # greedy decoding would not notice NaN by itself
        details = token_details(logits, self.ids, self.temperature, ALTERNATIVES)
        batch = TokensGenerated(token_events(self.sent, self.ids, self.pieces, details,
                                             self.names))
        self.sent += len(self.ids)
        self.ids, self.pieces, self.rows = [], [], []
        return batch


def batches_of(ids: list[int], pieces: list[str], details: Details, tokenizer,
               size: int = MOST_PER_BATCH) -> Iterator[TokensGenerated]:
    """Tokens known all at once (a beam's) in batches the console appends without a pause."""
    names = TokenNames(tokenizer)
    for start in range(0, len(ids), size):
        part = slice(start, start + size)
        yield TokensGenerated(token_events(start, ids[part], pieces[part], Details(
            details.probability[part], details.entropy[part], details.rank[part],
            details.ids[part], details.probs[part]), names))
