"""Which text of a corpus is held out for validation and test: whole documents, or long stretches.

A validation figure means something only on text the model never trained on *or beside*. The
old split (100 interleaved stripes, dataset.py) put every validation piece between training
pieces of the same scene and the same characters: it read 0.26-0.42 nats/char lower than a play
the model had not seen (issue 29). So the split is made on the text, before tokenizing:

- A corpus of three or more documents (the files of a folder) holds out whole documents. Unless
  the config names them, they are drawn from the seed: the documents in a seeded order, each
  taken while the split's share of the characters is not reached and it does not overshoot the
  share by half (the first that fits, else the smallest), at least one for each split with a
  share, at least one left for training.
- A corpus of one or two documents holds out a few long contiguous stretches: the text is cut
  into k regions (k at most MAX_STRETCHES, fewer so that each stretch keeps at least
  MIN_STRETCH_CHARS characters) and each region holds one validation and one test stretch side
  by side, at a seeded place, starting at a line. A text too short for two regions gets the
  plain tail cut: training, then validation, then test.

Every piece is a run of characters of `corpus.text`; the pieces cover it once, so no character
is in two splits whatever the tokenizer. The plan returns the documents or stretches it chose,
which the run records (`resolved_config`), so a resumed run holds out the same text.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.jobs import UserFacingError

SPLIT_NAMES = ("train", "val", "test")
MIN_DOCUMENTS = 3  # fewer cannot give validation, test and training a document each
MIN_STRETCH_CHARS = 20_000  # "tens of thousands": hundreds of 64-character windows in a row
MAX_STRETCHES = 4
LINE_SNAP = 1_000  # a stretch starts after the next line break within this many characters


@dataclass(frozen=True)
class Piece:
    start: int  # character offsets into corpus.text
    end: int
    split: str  # "train", "val" or "test"
    document: str  # the document it belongs to ('' for a stretch of a joined text)


@dataclass
class HeldOutPlan:
    kind: str  # "documents" or "stretches"
    pieces: list[Piece]
    validation_documents: tuple[str, ...] = ()
    test_documents: tuple[str, ...] = ()
    validation_stretches: tuple[int, ...] = ()  # start, end, start, end, ...
    test_stretches: tuple[int, ...] = ()

    def characters(self, split: str) -> int:
        return sum(p.end - p.start for p in self.pieces if p.split == split)

    def describe(self) -> str:
        """'Held out: validation othello.txt, test tempest.txt (whole documents).'"""
        total = max(1, sum(p.end - p.start for p in self.pieces))
        parts = []
        for split, word in (("val", "validation"), ("test", "test")):
            held = [p for p in self.pieces if p.split == split]
            share = f"{self.characters(split) / total:.0%}"
            if self.kind == "documents":
                names = ", ".join(p.document for p in held) or "nothing"
                parts.append(f"{word} {names} ({share})")
            elif held:
                shortest = min(p.end - p.start for p in held)
                parts.append(f"{word} {len(held)} stretch{'es' if len(held) > 1 else ''} "
                             f"of {shortest:,}+ characters ({share})")
        how = "whole documents" if self.kind == "documents" else "contiguous stretches"
        return f"Held out: {', '.join(parts) or 'nothing'} ({how})."


def document_spans(corpus) -> list[tuple[str, int, int]]:
    """(name, start, end) of every document in `corpus.text`; the line break that joins a
    document to the next counts as its own. One document for a corpus that has no list."""
    text = corpus.text
    documents = getattr(corpus, "documents", None) or []
    spans, start = [], 0
    for index, (name, body) in enumerate(documents):
        end = start + len(body) + (1 if index + 1 < len(documents) else 0)
        spans.append((name, start, end))
        start = end
    if not spans or start != len(text):  # not the documents the text was joined from
        return [(getattr(corpus, "name", "") or "text", 0, len(text))]
    return spans


def choose_documents(sizes: list[int], val_fraction: float, test_fraction: float, seed: int
                     ) -> tuple[list[int], list[int]]:
    """Indices (in corpus order) of the validation and test documents drawn from the seed."""
    total = sum(sizes)
    remaining = [int(i) for i in np.random.default_rng(seed).permutation(len(sizes))]
    chosen: dict[str, list[int]] = {"val": [], "test": []}
    for split, share, others in (("val", val_fraction, test_fraction > 0),
                                 ("test", test_fraction, False)):
        if share <= 0:
            continue
        target, taken = share * total, 0
        while taken < target and len(remaining) > 1 + others:
            fits = [i for i in remaining if taken + sizes[i] <= 1.25 * target]
            if not fits and taken:
                break
            if not fits:  # every document is larger than the share: one of the smallest
                smallest = min(sizes[i] for i in remaining)
                fits = [i for i in remaining if sizes[i] <= 1.25 * smallest]
            pick = fits[0]
            chosen[split].append(pick)
            remaining.remove(pick)
            taken += sizes[pick]
    return sorted(chosen["val"]), sorted(chosen["test"])


def _after_line_break(text: str, position: int, limit: int) -> int:
    """`position` moved to the start of the next line when one starts within LINE_SNAP
    characters and before `limit`."""
    cut = text.find("\n", position, min(limit, position + LINE_SNAP))
    return cut + 1 if cut >= 0 and cut + 1 < limit else position


def stretch_bounds(text: str, val_fraction: float, test_fraction: float, seed: int
                   ) -> tuple[list[int], list[int]]:
    """Flat (start, end, ...) offsets of the validation and the test stretches of `text`."""
    n = len(text)
    shares = [s for s in (val_fraction, test_fraction) if s > 0]
    if not shares:
        return [], []
    regions = min(MAX_STRETCHES, int(n * min(shares)) // MIN_STRETCH_CHARS)
    n_val, n_test = int(round(n * val_fraction)), int(round(n * test_fraction))
    if regions < 2:  # a short text: the tail cut, training first
        start = n - n_val - n_test
        return ([start, start + n_val] if n_val else []), ([n - n_test, n] if n_test else [])
    rng = np.random.default_rng(seed)
    val, test = [], []
    for r in range(regions):
        low, high = r * n // regions, (r + 1) * n // regions
        v = (r + 1) * n_val // regions - r * n_val // regions  # cumulative rounding
        t = (r + 1) * n_test // regions - r * n_test // regions
        # room for the three moves to a line start, so both stretches keep their length
        offset = low + int(rng.integers(0, max(1, high - low - v - t - 3 * LINE_SNAP)))
        a = _after_line_break(text, offset, high)
        b = _after_line_break(text, a + v, high) if v else a
        c = min(high, _after_line_break(text, b + t, high)) if t else b
        if v:
            val += [a, b]
        if t:
            test += [b, c]
    return val, test


def _pairs(flat: tuple[int, ...] | list[int]) -> list[tuple[int, int]]:
    return [(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat) - 1, 2)]


def _stretch_pieces(n: int, val: list[int], test: list[int], document: str) -> list[Piece]:
    held = sorted([(a, b, "val") for a, b in _pairs(val)]
                  + [(a, b, "test") for a, b in _pairs(test)])
    pieces, position = [], 0
    for a, b, split in held:
        if a < position or b > n or a >= b:
            raise UserFacingError(
                f"The recorded held-out stretch {a}-{b} does not fit this text of {n:,} "
                "characters (it changed since the run was made). Start a new run on it.")
        if a > position:
            pieces.append(Piece(position, a, "train", document))
        pieces.append(Piece(a, b, split, document))
        position = b
    if position < n:
        pieces.append(Piece(position, n, "train", document))
    return pieces


def _named(spans, names: tuple[str, ...], what: str) -> set[str]:
    known = {name for name, _, _ in spans}
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(sorted(known)[:6]) + (", …" if len(known) > 6 else "")
        raise UserFacingError(f"The {what} document {unknown[0]!r} is not in this corpus "
                              f"(its documents: {listed}). Choose among them in the Corpus "
                              "panel's Tokenizer tab.")
    return set(names)


def plan_held_out(corpus, config: TokenizerConfig, seed: int) -> HeldOutPlan:
    """The held-out plan of `corpus` under `config` (documents or stretches it names, else
    drawn from `seed`)."""
    spans = document_spans(corpus)
    val_names, test_names = config.validation_documents, config.test_documents
    named = bool(val_names or test_names)
    if named or (len(spans) >= MIN_DOCUMENTS and not (config.validation_stretches
                                                      or config.test_stretches)):
        if named:
            val_set = _named(spans, val_names, "validation")
            test_set = _named(spans, test_names, "test")
        else:
            val_ids, test_ids = choose_documents([end - start for _, start, end in spans],
                                                 config.val_fraction, config.test_fraction,
                                                 seed)
            val_set = {spans[i][0] for i in val_ids}
            test_set = {spans[i][0] for i in test_ids}
        if val_set & test_set:
            raise UserFacingError(f"{sorted(val_set & test_set)[0]!r} cannot be both validation "
                                  "and test text.")
        if len(val_set) + len(test_set) >= len(spans):
            raise UserFacingError("Every document is held out: keep at least one for training.")
        pieces = [Piece(start, end, "val" if name in val_set else
                        "test" if name in test_set else "train", name)
                  for name, start, end in spans]
        order = [name for name, _, _ in spans]  # recorded in corpus order
        return HeldOutPlan("documents", pieces,
                           tuple(n for n in order if n in val_set),
                           tuple(n for n in order if n in test_set))
    text = corpus.text
    if config.validation_stretches or config.test_stretches:
        val, test = list(config.validation_stretches), list(config.test_stretches)
    else:
        val, test = stretch_bounds(text, config.val_fraction, config.test_fraction, seed)
    document = spans[0][0] if len(spans) == 1 else ""
    return HeldOutPlan("stretches", _stretch_pieces(len(text), val, test, document),
                       validation_stretches=tuple(val), test_stretches=tuple(test))


def resolved_config(config: TokenizerConfig, plan: HeldOutPlan) -> TokenizerConfig:
    """`config` with the documents or stretches `plan` chose written in (what a run records)."""
    return dataclasses.replace(config, validation_documents=plan.validation_documents,
                               test_documents=plan.test_documents,
                               validation_stretches=plan.validation_stretches,
                               test_stretches=plan.test_stretches)
