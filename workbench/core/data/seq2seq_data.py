"""Pairs as token ids: per-side tokenizers, length limits, held-out split, padded batches.

`prepare_pairs` turns a `Seq2seqTaskConfig` into `PairData`: the pairs (generated or read from
a file), a tokenizer per side trained on the training pairs (characters or words; ids 0-3 are
<pad> <unk> <bos> <eos>), each side as a padded id matrix with its lengths. Pairs longer than
the limits are dropped and counted. A resumed run passes the saved vocabulary so the ids are
those it was trained on.

`pair_batch` pads a set of rows into the arrays a sequence-to-sequence batch holds:
  source (B, S) ids, source_mask (B, S) True on real tokens,
  target_in (B, T) = <bos> y_1 … y_m, target_out (B, T) = y_1 … y_m <eos> (IGNORE on padding),
  target_mask (B, T) True where target_out is real.
S and T are the longest row of the batch, so padding is as small as the batch allows.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

import numpy as np

from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
from workbench.core.corpus.tokenizers import (
    BOS,
    EOS,
    PAD,
    CharTokenizer,
    Tokenizer,
    WordTokenizer,
    tokenizer_from_dict,
)
from workbench.core.data.generated import generate, held_out_split
from workbench.core.data.pairs import read_pairs
from workbench.core.events import Event, Notice, Progress
from workbench.core.jobs import UserFacingError

IGNORE_INDEX = -100


@dataclass
class Side:
    """One side of a set of pairs: ids padded with <pad> (N, L) and each row's length."""

    ids: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @staticmethod
    def of(rows: list[list[int]]) -> Side:
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        ids = np.full((len(rows), int(lengths.max(initial=1))), PAD, dtype=np.int64)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
        return Side(ids, lengths)


@dataclass
class PairData:
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    train_source: Side
    train_target: Side
    val_source: Side
    val_target: Side
    val_pairs: list[tuple[str, str]] = field(default_factory=list)  # the texts, for previews
    description: str = ""
    dropped: int = 0
    # every target each held-out source has in the data (its own first): all are right answers
    val_references: list[list[str]] = field(default_factory=list)
    target_spacing: dict | None = None  # a word target's spacing (corpus/detokenize.py)

    def vocabulary(self) -> dict:
        vocabulary = {"source": self.source_tokenizer.to_dict(),
                      "target": self.target_tokenizer.to_dict()}
        if self.target_spacing:
            vocabulary["target_spacing"] = self.target_spacing
        return vocabulary

    def references(self) -> list[list[str]]:
        """The references of each held-out pair (its own target when none were gathered)."""
        if len(self.val_references) == len(self.val_pairs):
            return self.val_references
        return [[target] for _, target in self.val_pairs]


def side_tokenizer(kind: str, texts: list[str]) -> Tokenizer:
    if kind == "word":
        return WordTokenizer.train(texts, DEFAULT_WORD_PATTERN)
    return CharTokenizer.train(texts)


def load_pairs(config) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str,
                                list[list[str]]]:
    """(training pairs, held-out pairs, a description of the data, the references of each
    held-out pair: every target its source has in the data, its own first)."""
    from workbench.core.metrics.seq2seq import references_of

    if config.data == "file":
        pairs = read_pairs(config.path, config.source_column, config.target_column,
                           config.skip_header)
        if config.held_out >= len(pairs):
            raise UserFacingError(f"The file has {len(pairs)} pairs, not more than the "
                                  f"{config.held_out} to hold out. Lower 'Held-out examples'.")
        train, val = held_out_split("file", pairs, config.held_out, config.data_seed)
        if not train:  # every source is held out: said, not "no pair fits the limits"
            distinct = len({source for source, _ in pairs})
            raise UserFacingError(
                f"The file has {len(pairs):,} pairs but only {distinct:,} different "
                f"source{'s' if distinct != 1 else ''}. A held-out pair's source is in no "
                f"training pair (so validation measures more than recall), and holding out "
                f"{config.held_out:,} leaves nothing to train on. "
                + (f"Lower 'Held-out examples' below {distinct}, or add pairs."
                   if distinct > 1 else "Add pairs with other sources."))
        description = f"{len(pairs):,} pairs from {config.path}"
    else:
        pairs = generate(config.data, config.size, config.length, config.data_seed)
        train, val = held_out_split(config.data, pairs, config.held_out, config.data_seed)
        description = (f"{config.data} (generated: {config.size:,} pairs, length "
                       f"{config.length}, seed {config.data_seed})")
    others = references_of(pairs, [s for s, _ in val])
    references = [[t] + [r for r in refs if r != t] for (_, t), refs in zip(val, others,
                                                                          strict=True)]
    return train, val, description, references


def prepare_pairs(config, vocabulary: dict | None = None
                  ) -> Generator[Event, None, PairData]:
    yield Progress(0, None, "Reading pairs" if config.data == "file" else "Generating pairs")
    train, val, description, references = load_pairs(config)
    if vocabulary:
        source_tok = tokenizer_from_dict(vocabulary["source"])
        target_tok = tokenizer_from_dict(vocabulary["target"])
    else:
        source_tok = side_tokenizer(config.source_tokens, [s for s, _ in train])
        target_tok = side_tokenizer(config.target_tokens, [t for _, t in train])
    yield Progress(0, None, "Tokenizing pairs")
    sides, dropped = {}, 0
    for split, pairs in (("train", train), ("val", val)):
        sources = [source_tok.encode(s) for s, _ in pairs]
        targets = [target_tok.encode(t) for _, t in pairs]
        keep = [i for i in range(len(pairs))
                if 0 < len(sources[i]) <= config.max_source_length
                and 0 < len(targets[i]) < config.max_target_length]  # <eos> takes one place
        dropped += len(pairs) - len(keep)
        if not keep:
            raise UserFacingError(f"No {'training' if split == 'train' else 'held-out'} pair "
                                  "fits the length limits. Raise 'Longest source' or 'Longest "
                                  "target'.")
        sides[split] = (Side.of([sources[i] for i in keep]), Side.of([targets[i] for i in keep]),
                        [pairs[i] for i in keep], keep)
    if dropped:
        yield Notice(f"{dropped:,} pairs longer than the limits (source "
                     f"{config.max_source_length}, target {config.max_target_length} tokens) "
                     "were left out.", "info")
    from workbench.core.corpus.detokenize import learn_spacing

    return PairData(source_tok, target_tok, sides["train"][0], sides["train"][1],
                    sides["val"][0], sides["val"][1], sides["val"][2], description, dropped,
                    [references[i] for i in sides["val"][3]],
                    learn_spacing(target_tok, [t for _, t in train]))


def pair_batch(source: Side, target: Side, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The padded arrays of a batch of `rows` (see the module docstring)."""
    src_len, tgt_len = source.lengths[rows], target.lengths[rows]
    width, steps = int(src_len.max()), int(tgt_len.max()) + 1
    src = source.ids[rows, :width]
    body = target.ids[rows, : steps - 1]
    target_in = np.full((len(rows), steps), PAD, dtype=np.int64)
    target_in[:, 0] = BOS
    target_in[:, 1:] = body
    target_out = np.full((len(rows), steps), IGNORE_INDEX, dtype=np.int64)
    target_out[:, :-1] = np.where(body == PAD, IGNORE_INDEX, body)
    target_out[np.arange(len(rows)), tgt_len] = EOS
    return {"source": np.ascontiguousarray(src),
            "source_mask": np.arange(width)[None, :] < src_len[:, None],
            "target_in": target_in, "target_out": target_out,
            "target_mask": target_out != IGNORE_INDEX}

