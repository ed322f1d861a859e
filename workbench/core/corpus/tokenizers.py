"""Tokenizers: character, word (regex) and byte-level BPE, with one shared interface.

Every tokenizer numbers its vocabulary with the four special tokens first:
`PAD, UNK, BOS, EOS = 0, 1, 2, 3`. `to_dict()` gives a JSON-safe description that
`tokenizer_from_dict` turns back into an equal tokenizer (checkpoints and snapshots carry it).

Round trips: `decode(encode(text)) == text` exactly for the char tokenizer on any text made of
characters it knows, and for BPE on any text at all (it works on UTF-8 bytes). The word
tokenizer drops whitespace, so its `decode` re-spaces words by a simple rule and is lossy.

The `tokenizers` library (Rust) is imported only when a BPE tokenizer is built or read, so the
window starts without it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import numpy as np

from workbench.core.corpus.bpe_tokenizer import BYTE_LEVEL_ALPHABET, BpeTokenizer, readable_bytes
from workbench.core.corpus.tokenizer_base import (
    BOS,
    EOS,
    PAD,
    SPECIAL_IDS,
    SPECIAL_TOKENS,
    UNK,
    Tokenizer,
    _TableTokenizer,
    _vocabulary,
    not_text_error,
)
from workbench.core.jobs import UserFacingError

# what other modules import from here (the base and BPE live in their own files)
__all__ = ["BOS", "BYTE_LEVEL_ALPHABET", "EOS", "PAD", "SPECIAL_IDS", "SPECIAL_TOKENS", "UNK",
           "BpeTokenizer", "CharTokenizer", "Tokenizer", "WordTokenizer", "compile_word_pattern",
           "not_text_error", "readable_bytes", "tokenizer_from_dict"]


class CharTokenizer(_TableTokenizer):
    kind = "char"

    def __init__(self, symbols: list[str]) -> None:
        super().__init__(symbols)
        # Sorted code points and their ids give a vectorised encode (np.searchsorted).
        points = np.array([ord(s) for s in self.symbols], dtype=np.int64)
        order = np.argsort(points)
        self._points = points[order]
        self._point_ids = (order + len(SPECIAL_TOKENS)).astype(np.int64)

    @classmethod
    def train(cls, text: str | Iterable[str], min_count: int = 1) -> CharTokenizer:
        counts: Counter = Counter()
        for chunk in [text] if isinstance(text, str) else text:
            # bincount over code points: Counter(str) would hold the interpreter far longer
            points = np.frombuffer(chunk.encode("utf-32-le"), dtype=np.uint32)
            if len(points):
                per_point = np.bincount(points)
                for point in np.flatnonzero(per_point):
                    counts[chr(point)] += int(per_point[point])
        return cls(_vocabulary(counts, min_count))

    def encode_array(self, text: str) -> np.ndarray:
        try:
            data = text.encode("utf-32-le")
        except UnicodeEncodeError:
            raise not_text_error(text) from None
        points = np.frombuffer(data, dtype=np.uint32).astype(np.int64)
        if len(self._points) == 0:
            return np.full(len(points), UNK, dtype=np.int64)
        where = np.searchsorted(self._points, points)
        where = np.minimum(where, len(self._points) - 1)
        known = self._points[where] == points
        return np.where(known, self._point_ids[where], UNK).astype(np.int64)

    def encode(self, text: str) -> list[int]:
        return self.encode_array(text).tolist()

    def decode(self, ids: Iterable[int]) -> str:
        itos, out = self.itos, []
        for i in ids:
            i = int(i)
            if i == UNK:
                out.append("\ufffd")
            elif i not in SPECIAL_IDS:
                out.append(itos[i])
        return "".join(out)

    def to_dict(self) -> dict:
        return self._described({"kind": self.kind, "symbols": self.symbols})


# Word patterns run in the `regex` module (Python's `re` syntax and Unicode classes) with a
# time limit in processor seconds; a normal pattern needs well under a second per megabyte.
PATTERN_SECONDS = 2.0
PATTERN_SECONDS_PER_CHAR = 2e-6


def compile_word_pattern(pattern: str):
    """A word pattern compiled for `WordTokenizer`; `UserFacingError` when it is invalid."""
    import regex

    try:
        return regex.compile(pattern)
    except (regex.error, TypeError) as exc:
        raise UserFacingError(f"The word pattern {pattern!r} is not a valid regular "
                              f"expression: {exc}. Fix it, or use the default pattern.") from None


_NO_SPACE_BEFORE = re.compile(r" ([,.;:!?)\]}'\n])")
_NO_SPACE_AFTER = re.compile(r"([(\[{\n]) ")


class WordTokenizer(_TableTokenizer):
    kind = "word"

    def __init__(self, symbols: list[str], pattern: str, lowercase: bool) -> None:
        super().__init__(symbols)
        self.pattern = pattern
        self.lowercase = lowercase
        self._regex = compile_word_pattern(pattern)

    def words(self, text: str) -> list[str]:
        """The words of `text`, within a time limit: a pattern that backtracks
        catastrophically ((a|aa)+$ on a long run of a's) would otherwise run for hours, and no
        Cancel can stop a regular expression midway."""
        limit = PATTERN_SECONDS + PATTERN_SECONDS_PER_CHAR * len(text)
        try:  # concurrent: the match releases the interpreter, so the window keeps drawing
            found = self._regex.findall(text.lower() if self.lowercase else text,
                                        timeout=limit, concurrent=True)
            # a zero-width match (a lookahead alone) is no word: never a token of nothing
            return [word for word in found if word]
        except TimeoutError:
            raise UserFacingError(
                f"The word pattern {self.pattern!r} took over {limit:.0f} s of processor time "
                f"on {len(text):,} characters: it backtracks catastrophically (nested or "
                r"overlapping repetition such as (a|aa)+ or (\w+\s?)*). Simplify it, or use "
                "the default pattern.") from None

    @classmethod
    def train(cls, text: str | Iterable[str], pattern: str, lowercase: bool = False,
              min_count: int = 1, limit: int = 0) -> WordTokenizer:
        probe = cls([], pattern, lowercase)
        counts: Counter = Counter()
        read = 0
        for chunk in [text] if isinstance(text, str) else text:
            counts.update(probe.words(chunk))
            read += len(chunk.strip())
        if read and not counts:
            raise UserFacingError(f"The word pattern {pattern!r} finds no word in this text. "
                                  "Give a pattern that matches words, or use the default.")
        return cls(_vocabulary(counts, min_count, limit), pattern, lowercase)

    def encode(self, text: str) -> list[int]:
        stoi = self.stoi
        return [stoi.get(w, UNK) for w in self.words(text)]

    def decode(self, ids: Iterable[int]) -> str:
        words = []
        for i in ids:
            i = int(i)
            if i == UNK:
                words.append(SPECIAL_TOKENS[UNK])
            elif i not in SPECIAL_IDS:
                words.append(self.itos[i])
        text = " ".join(words)
        # Whitespace was not kept: put punctuation and line breaks back against their words.
        text = _NO_SPACE_BEFORE.sub(r"\1", text)
        return _NO_SPACE_AFTER.sub(r"\1", text)

    def to_dict(self) -> dict:
        return self._described({"kind": self.kind, "symbols": self.symbols,
                                "pattern": self.pattern, "lowercase": self.lowercase})


def tokenizer_from_dict(d: dict) -> Tokenizer:
    """The tokenizer a table describes; `UserFacingError` naming what is wrong with a damaged
    or edited one (tokenizer_tables.py), never a raw KeyError or TypeError."""
    from workbench.core.corpus.tokenizer_tables import table_problem

    problem = table_problem(d)
    if problem is not None:
        raise UserFacingError(f"This model's tokenizer cannot be used: {problem}. The file "
                              "was damaged or edited; use another checkpoint.")
    kind = d["kind"]
    if kind == "char":
        tokenizer: Tokenizer = CharTokenizer(list(d["symbols"]))
    elif kind == "word":
        tokenizer = WordTokenizer(list(d["symbols"]), d["pattern"], d.get("lowercase", False))
    else:
        try:  # the library raises a bare Exception for JSON it cannot read
            if kind == "pretrained":
                from workbench.core.corpus.pretrained_tokenizer import PretrainedTokenizer

                return PretrainedTokenizer(d["tokenizer_json"], d["bos_id"], d["eos_id"])
            tokenizer = BpeTokenizer.from_json(d["tokenizer_json"])
        except Exception as exc:  # noqa: BLE001 - any failure here is a damaged table
            raise UserFacingError(f"This model's tokenizer cannot be used: its BPE JSON "
                                  f"cannot be read ({exc}). The file was damaged or edited; "
                                  "use another checkpoint.") from None
    tokenizer.boundaries = d.get("boundaries", "none")
    return tokenizer
