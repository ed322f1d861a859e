"""Token ids of a whole corpus and its train/validation/test split.

The split is made on the text (held_out.py): whole held-out documents, or a few long
stretches of a corpus of one or two documents. Each piece of text is encoded on its own (the
pieces cover the text once), so no character is in two splits whatever the tokenizer, and the
three arrays are the ids of their pieces in corpus order. The documents or stretches chosen
are written into `TokenizedCorpus.config`, which a run records as its recipe's [tokenizer].

`split_steps(ids, val, test, stripes)` is the split of runs made before (config
`split = "stripes"`): the ids cut into up to `stripes` equal stripes (fewer when a stripe would
hold under MIN_STRIPE_TOKENS tokens), every stripe into training, then validation, then test.
It samples the whole corpus, but every validation piece sits between training pieces of the
same scene, so it flattered the models (issue 29); it stays so that old runs resume on the
text they were trained on. Nothing is shuffled in either split: the same corpus, settings and
seed always give the same three arrays.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.boundaries import encode_chunks
from workbench.core.corpus.held_out import (
    SPLIT_NAMES,
    HeldOutPlan,
    plan_held_out,
    resolved_config,
)
from workbench.core.corpus.text_chunks import Pacer, text_chunks
from workbench.core.corpus.tokenizers import (
    UNK,
    BpeTokenizer,
    CharTokenizer,
    Tokenizer,
    WordTokenizer,
)
from workbench.core.events import Event, JobFinished, Progress
from workbench.core.jobs import JobSpec, UserFacingError, run_to_end

MIN_SPLIT_TOKENS = 2  # a block needs an input and a target token to be of any use
# A stripe this short still gives a validation piece of ~1,000 tokens at the default 10%:
# many truncated-BPTT windows in a row before a seam.
MIN_STRIPE_TOKENS = 10_000
DEFAULT_SPLIT_SEED = 1234  # the training form's default seed: the window and the presets agree


@dataclass
class TokenizedCorpus:
    tokenizer: Tokenizer
    ids: np.ndarray  # (N,) int64, the whole corpus
    train: np.ndarray  # the training pieces, concatenated in corpus order
    val: np.ndarray  # the validation pieces
    test: np.ndarray  # the test pieces
    config: TokenizerConfig = field(default_factory=TokenizerConfig)  # the split written in
    corpus_name: str = ""
    unknown_tokens: int | None = None  # ids equal to UNK; counted when encoding
    token_counts: np.ndarray | None = field(default=None, repr=False)  # (vocab_size,) int64
    held_out: HeldOutPlan | None = None  # None: the old striped split
    piece_tokens: list[int] = field(default_factory=list)  # tokens of each held_out piece

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def split_sizes(self) -> dict[str, int]:
        return {"train": len(self.train), "val": len(self.val), "test": len(self.test)}

    def stripes(self) -> int:
        """How many stripes the old split cut the ids into (0 for today's split)."""
        if self.held_out is not None:
            return 0
        return stripe_count(len(self.ids), self.config.split_stripes)

    def split_ranges(self, split: str) -> list[tuple[int, int]]:
        """(start, end) in `ids` of every piece of `split` ("train", "val" or "test")."""
        if self.held_out is None:
            column = SPLIT_NAMES.index(split)
            bounds = split_bounds(len(self.ids), self.config.val_fraction,
                                  self.config.test_fraction, self.config.split_stripes)
            return [(b[column], b[column + 1]) for b in bounds if b[column + 1] > b[column]]
        return _piece_ranges(self.held_out, self.piece_tokens)[split]

    def held_out_rows(self) -> list[tuple[str, str, int, int]]:
        """(document or stretch, split, characters, tokens) of every piece, in corpus order."""
        if self.held_out is None:
            return []
        rows = []
        for piece, tokens in zip(self.held_out.pieces, self.piece_tokens, strict=True):
            label = piece.document if self.held_out.kind == "documents" else (
                f"characters {piece.start:,}-{piece.end:,}")
            rows.append((label, piece.split, piece.end - piece.start, tokens))
        return rows

    def unknown_count(self) -> int:
        if self.unknown_tokens is None:
            self.unknown_tokens = int(np.count_nonzero(self.ids == UNK))
        return self.unknown_tokens


def stripe_count(n_tokens: int, stripes: int) -> int:
    """How many stripes `n_tokens` are cut into: `stripes`, fewer so that each keeps at least
    MIN_STRIPE_TOKENS tokens, and at least one."""
    return max(1, min(stripes, n_tokens // MIN_STRIPE_TOKENS))


def split_bounds(n_tokens: int, val_fraction: float, test_fraction: float, stripes: int
                 ) -> list[tuple[int, int, int, int]]:
    """(start, val_start, test_start, end) of every stripe. Shares are spread by cumulative
    rounding, so the totals are exactly round(n * share) whatever the number of stripes."""
    k = stripe_count(n_tokens, stripes)
    n_val, n_test = int(round(n_tokens * val_fraction)), int(round(n_tokens * test_fraction))
    bounds = []
    for i in range(k):
        start, end = i * n_tokens // k, (i + 1) * n_tokens // k
        val = (i + 1) * n_val // k - i * n_val // k
        test = (i + 1) * n_test // k - i * n_test // k
        bounds.append((start, end - val - test, end - test, end))
    return bounds


def _check_sizes(n: int, val_fraction: float, test_fraction: float) -> None:
    n_val = int(round(n * val_fraction))
    n_train = n - n_val - int(round(n * test_fraction))
    too_small = n_train < MIN_SPLIT_TOKENS or (0 < n_val < MIN_SPLIT_TOKENS) or (
        val_fraction > 0 and n_val == 0)
    if too_small:
        raise UserFacingError(
            f"The corpus has only {n} tokens: too few to split into training "
            f"({1 - val_fraction - test_fraction:.0%}) and validation ({val_fraction:.0%}) "
            "blocks of at least 2 tokens. Load a longer text or lower the validation share."
        )


def split_steps(ids: np.ndarray, val_fraction: float, test_fraction: float, stripes: int = 1
                ) -> Generator[Event, None, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Train, validation and test ids (see the module docstring), copied stripe by stripe with
    a Progress between copies: one gather of 100M ids would hold the interpreter for a second."""
    _check_sizes(len(ids), val_fraction, test_fraction)
    bounds = split_bounds(len(ids), val_fraction, test_fraction, stripes)
    sizes = [sum(b[1] - b[0] for b in bounds), sum(b[2] - b[1] for b in bounds),
             sum(b[3] - b[2] for b in bounds)]
    if len(bounds) == 1:  # one stripe: the three blocks are plain slices, no copy needed
        start, val, test, end = bounds[0]
        return ids[start:val], ids[val:test], ids[test:end]
    parts = [np.empty(size, dtype=ids.dtype) for size in sizes]
    filled, pacer = [0, 0, 0], Pacer()
    for number, (start, val, test, end) in enumerate(bounds):
        for which, (a, b) in enumerate(((start, val), (val, test), (test, end))):
            parts[which][filled[which]:filled[which] + b - a] = ids[a:b]
            filled[which] += b - a
        if pacer.due():
            yield Progress(number + 1, len(bounds), "Splitting into train, validation, test")
    return parts[0], parts[1], parts[2]


def split_ids(ids: np.ndarray, val_fraction: float, test_fraction: float, stripes: int = 1
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`split_steps` as a plain call (scripts and tests); stripes=1 is the old contiguous cut."""
    return run_to_end(split_steps(ids, val_fraction, test_fraction, stripes))


def train_tokenizer(text: str, config: TokenizerConfig) -> Tokenizer:
    chunks = text_chunks(text)
    if config.kind == "char":
        return CharTokenizer.train(chunks, config.min_count)
    if config.kind == "word":
        return WordTokenizer.train(chunks, config.word_pattern, config.lowercase,
                                   config.min_count, config.max_word_vocab)
    if config.kind == "bpe":
        return BpeTokenizer.train(text.splitlines(keepends=True), config.bpe_vocab_size)
    raise UserFacingError(f"Unknown tokenizer '{config.kind}'. Choose char, word or bpe.")


def _join(parts: list) -> Generator[Event, None, np.ndarray]:
    """One array from the encoded pieces, copied piece by piece between yields.

    `np.concatenate` of 100M ids is a single call of seconds (mostly page faults of the new
    array) that would hold the interpreter, and so the window, for all that time.
    """
    ids = np.empty(sum(len(p) for p in parts), dtype=np.int64)
    position, pacer = 0, Pacer()
    for i, part in enumerate(parts):
        ids[position:position + len(part)] = part
        position += len(part)
        parts[i] = None  # free each piece once copied: lower peak memory
        if pacer.due():  # a yield between copies lets the GUI thread take the interpreter
            yield Progress(position, len(ids), "Collecting token ids")
    return ids


def _encode(tokenizer: Tokenizer, pieces: Iterable[str], boundaries: str, counts: np.ndarray,
            control, progress: list[int]) -> Generator[Event, None, list[list[np.ndarray]]]:
    """The ids of every piece of text, chunk by chunk (kept apart: `_join` copies them between
    yields), each piece encoded on its own (a line or sentence never runs from one piece into
    the next); `counts` gains their token counts."""
    encoded, pacer = [], Pacer()
    done, total = progress
    for piece in pieces:
        parts = []
        for chunk, part in encode_chunks(tokenizer, text_chunks(piece), boundaries):
            counts += np.bincount(part, minlength=tokenizer.vocab_size)[:tokenizer.vocab_size]
            parts.append(part)
            done += len(chunk)
            control.check()
            if pacer.due():
                yield Progress(done, total, "Encoding")
        encoded.append(parts)
    return encoded


def _gather(ids: np.ndarray, plan: HeldOutPlan, piece_tokens: list[int]
            ) -> Generator[Event, None, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Train, validation and test ids: the pieces of each split, in corpus order. A split of
    one piece is a slice (no copy); the others are copied piece by piece between yields."""
    ranges = _piece_ranges(plan, piece_tokens)
    out, pacer = [], Pacer()
    for name in SPLIT_NAMES:
        spans = ranges[name]
        if len(spans) <= 1:
            out.append(ids[spans[0][0]:spans[0][1]] if spans else ids[:0])
            continue
        part, filled = np.empty(sum(b - a for a, b in spans), dtype=ids.dtype), 0
        for a, b in spans:
            part[filled:filled + b - a] = ids[a:b]
            filled += b - a
            if pacer.due():
                yield Progress(filled, len(part), "Splitting into train, validation, test")
        out.append(part)
    return out[0], out[1], out[2]


def _piece_ranges(plan: HeldOutPlan, piece_tokens: list[int]
                  ) -> dict[str, list[tuple[int, int]]]:
    ranges: dict[str, list[tuple[int, int]]] = {name: [] for name in SPLIT_NAMES}
    position = 0
    for piece, count in zip(plan.pieces, piece_tokens, strict=True):
        if count:
            ranges[piece.split].append((position, position + count))
        position += count
    return ranges


def _check_held_out(n: int, n_train: int, n_val: int, val_fraction: float) -> None:
    if n_train < MIN_SPLIT_TOKENS or (val_fraction > 0 and n_val < MIN_SPLIT_TOKENS):
        raise UserFacingError(
            f"The corpus has only {n} tokens: too few to split into training and held-out "
            "validation text of at least 2 tokens each. Load a longer text or lower the "
            "validation share.")


def tokenize_job(corpus, config: TokenizerConfig, tokenizer: Tokenizer | None = None,
                 seed: int = DEFAULT_SPLIT_SEED) -> JobSpec:
    """Train a tokenizer on the corpus text (unless one is given), encode it and split it;
    `seed` draws the held-out documents or stretches the config does not name.

    The job ends with `JobFinished(result=TokenizedCorpus)`. Encoding goes chunk by chunk so a
    large corpus can be cancelled and never holds the interpreter for long.
    """

    def job(control) -> Iterator[Event]:
        problems = config.problems()
        if problems:
            raise UserFacingError("Tokenizer settings: " + " ".join(problems))
        text = corpus.text
        total = max(1, 2 * len(text))
        label = {"char": "characters", "word": "words", "bpe": "BPE merges"}.get(config.kind, "")
        yield Progress(0, total, f"Building the {label} vocabulary")
        trained = tokenizer or train_tokenizer(text, config)
        trained.boundaries = config.boundaries
        done = len(text)
        yield Progress(done, total, f"Encoding with {trained.vocab_size} tokens")
        counts = np.zeros(trained.vocab_size, dtype=np.int64)
        if config.split == "stripes":  # a run made before held-out documents: as it was
            encoded = yield from _encode(trained, [text], config.boundaries, counts, control,
                                         [done, total])
            ids = yield from _join(encoded[0])
            train, val, test = yield from split_steps(ids, config.val_fraction,
                                                      config.test_fraction,
                                                      config.split_stripes)
            plan, piece_tokens, recorded = None, [], config
        else:
            plan = plan_held_out(corpus, config, seed)
            pieces = (text[p.start:p.end] for p in plan.pieces)  # one copy at a time
            encoded = yield from _encode(trained, pieces, config.boundaries, counts, control,
                                         [done, total])
            piece_tokens = [sum(len(c) for c in chunks) for chunks in encoded]
            ids = yield from _join([c for chunks in encoded for c in chunks])
            train, val, test = yield from _gather(ids, plan, piece_tokens)
            _check_held_out(len(ids), len(train), len(val), config.val_fraction)
            recorded = resolved_config(config, plan)
        result = TokenizedCorpus(trained, ids, train, val, test, recorded,
                                 corpus_name=getattr(corpus, "name", ""),
                                 unknown_tokens=int(counts[UNK]), token_counts=counts,
                                 held_out=plan, piece_tokens=piece_tokens)
        yield JobFinished(result=result)

    return JobSpec(f"Tokenizing ({config.kind})", job)
