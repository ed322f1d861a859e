"""Sentence pairs for BERT's next-sentence prediction (Devlin et al. 2019, sec. 3.1; SEEDS T16).

Each example is a sentence A of the corpus and a sentence B: half the time the sentence that
follows A in the text (IsNext), half the time a sentence drawn at random from elsewhere in the
same split, never the one that follows (NotNext). The pair is read as [CLS] A [SEP] B [SEP],
segment 0 up to the first [SEP] and segment 1 after it.

The held-out split stays honest: the sentences are cut into blocks of consecutive lines (never
across two files), whole blocks go to training or validation (a seeded cut), and a pair and its
random partner come from one split only, so no validation sentence is ever read in training,
as A, as B or as a NotNext partner.

The app's own tokenizers have no [CLS] or [SEP]: their <bos> and <eos> (ids 2 and 3, which
every vocabulary already has and masked-LM never reads otherwise) play those parts, so no saved
vocabulary is renumbered; a BERT folder's tokenizer brings its own [CLS] and [SEP].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.corpus.tokenizers import BOS, EOS, UNK
from workbench.core.data.splits import split_indices
from workbench.core.jobs import UserFacingError

PAIR_SEPARATOR = "|||"  # how a pair is written as one text: "A ||| B" (the console's probe)
BLOCK = 32  # consecutive sentences kept in one split together
IS_NEXT, NOT_NEXT = 0, 1  # the label order of BERT's seq_relationship head
CLS_TEXT, SEP_TEXT = "[CLS]", "[SEP]"
_TRIES = 50  # draws for a NotNext partner before the pair is dropped (a split of one text)


@dataclass(frozen=True)
class Pair:
    first: int  # index of sentence A in the corpus' lines
    second: int  # index of sentence B
    is_next: bool


def blocks_of(sources: list[str] | tuple[str, ...], size: int = BLOCK) -> list[list[int]]:
    """Line indices cut into runs of at most `size` consecutive lines, a new run at every
    file ("file.txt:12": the part before the last colon)."""
    blocks: list[list[int]] = []
    previous = None
    for i, where in enumerate(sources):
        file = where.rsplit(":", 1)[0]
        if not blocks or file != previous or len(blocks[-1]) >= size:
            blocks.append([])
        blocks[-1].append(i)
        previous = file
    return blocks


def split_blocks(sources, val_fraction: float, seed: int
                 ) -> tuple[list[list[int]], list[list[int]]]:
    """The training and validation blocks: whole blocks, a seeded cut."""
    blocks = blocks_of(sources)
    train, val, _ = split_indices(len(blocks), val_fraction, 0.0, seed)
    return [blocks[i] for i in train], [blocks[i] for i in val]


def make_pairs(blocks: list[list[int]], lines, rng: np.random.Generator) -> list[Pair]:
    """One pair per sentence that has a next one in its block: IsNext or NotNext with equal
    chance. A NotNext partner is any sentence of these blocks other than A and the true next
    one (nor one with the same words as the true next: a repeated line would be it, read
    twice)."""
    pool = [i for block in blocks for i in block]
    pairs = []
    for block in blocks:
        for first, true_next in zip(block, block[1:], strict=False):
            if rng.random() < 0.5:
                pairs.append(Pair(first, true_next, True))
                continue
            for _ in range(_TRIES):
                other = pool[int(rng.integers(len(pool)))]
                if other not in (first, true_next) and lines[other] != lines[true_next]:
                    pairs.append(Pair(first, other, False))
                    break
    return pairs


def pair_specials(tokenizer) -> tuple[int, int]:
    """The ids of [CLS] and [SEP]: a BERT tokenizer's own (its frame [CLS] … [SEP]), else the
    app's <bos> and <eos>."""
    prefix, suffix = getattr(tokenizer, "frame", ((), ()))
    if len(prefix) == 1 and len(suffix) == 1:
        return int(prefix[0]), int(suffix[0])
    if prefix or suffix:
        raise UserFacingError("This tokenizer frames a text otherwise than [CLS] text [SEP], "
                              "so a pair of sentences cannot be framed as BERT reads it. "
                              "Next-sentence prediction needs a BERT folder's tokenizer or "
                              "one of the app's own.")
    return BOS, EOS


def frame_pair(first: list[int], second: list[int], cls: int, sep: int,
               max_length: int) -> tuple[np.ndarray, int, bool]:
    """[CLS] A [SEP] B [SEP] within `max_length` tokens (the longer sentence cut from its end
    first, as BERT's data preparation does; each keeps one token), where segment 1 (B) starts,
    and whether anything was cut."""
    a, b = list(first) or [UNK], list(second) or [UNK]
    cut = False
    while len(a) + len(b) + 3 > max_length and len(a) + len(b) > 2:
        longer = a if len(a) >= len(b) else b
        longer.pop()
        cut = True
    ids = np.asarray([cls, *a, sep, *b, sep], dtype=np.int64)
    return ids, len(a) + 2, cut


def segment_rows(starts: list[int], mask: np.ndarray) -> np.ndarray:
    """(B, S) segment ids of a padded batch whose real tokens are `mask`: 1 from each row's
    start of B on, 0 before it and on the padding."""
    columns = np.arange(mask.shape[1])[None, :]
    return ((columns >= np.asarray(starts)[:, None]) & mask).astype(np.int64)


def probe_segments(ids: list[int], sep: int) -> list[int]:
    """A framed probe's segment ids: 0 up to and with the first [SEP], 1 after it."""
    if sep not in ids:
        return [0] * len(ids)
    first = ids.index(sep)
    return [0] * (first + 1) + [1] * (len(ids) - first - 1)
