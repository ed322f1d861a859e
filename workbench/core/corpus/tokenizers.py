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
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable

import numpy as np

from workbench.core.jobs import UserFacingError

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIAL_TOKENS = ("<pad>", "<unk>", "<bos>", "<eos>")
SPECIAL_IDS = frozenset((PAD, UNK, BOS, EOS))


def not_text_error(text: str) -> UserFacingError:
    """The message for text holding a lone surrogate (half of a UTF-16 pair, which a
    terminal's undecodable bytes or a pasted fragment can give): it is no character, and
    neither UTF-8 nor the tokenizers can hold it."""
    where = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
    if where is None:
        return UserFacingError("The text cannot be read as Unicode characters. Retype it.")
    return UserFacingError(
        f"The text holds U+{ord(text[where]):04X} at character {where + 1}: half of a "
        "character pair (a lone surrogate, often bytes a terminal could not decode), not a "
        "character. Remove it or retype the text.")


class Tokenizer(ABC):
    kind: str = ""
    # "none" | "lines" | "sentences": how the corpus was cut into <bos> ... <eos> units when
    # this tokenizer encoded it for training (see corpus/boundaries.py); a model trained so
    # expects every text it reads to start with <bos>.
    boundaries: str = "none"

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """Number of ids, special tokens included."""

    @abstractmethod
    def encode(self, text: str) -> list[int]: ...

    @abstractmethod
    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids; pad, bos and eos are left out, unknowns show as U+FFFD."""

    @abstractmethod
    def token(self, i: int) -> str:
        """The text of one vocabulary entry (special tokens as `<pad>`, `<unk>`...)."""

    def readable_token(self, i: int) -> str:
        """The entry as a person should read it in a list: `token(i)`, except that a piece
        which is not whole UTF-8 characters shows its bytes as `<0xE2>` instead of U+FFFD."""
        return self.token(i)

    @abstractmethod
    def to_dict(self) -> dict: ...

    def encode_array(self, text: str) -> np.ndarray:
        return np.asarray(self.encode(text), dtype=np.int64)

    def encode_prompt(self, text: str) -> list[int]:
        """The ids a model reads for a prompt or probe: `encode(text)`, after <bos> when the
        model was trained with text boundaries (it saw <bos> before every line or sentence)."""
        try:  # what the console prints back must be text too (any tokenizer's prompt)
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise not_text_error(text) from None
        ids = self.encode(text) if text else []
        return [BOS, *ids] if self.boundaries != "none" else ids

    def _described(self, d: dict) -> dict:
        """`to_dict` plus the boundaries, left out when "none" so older checkpoints compare
        equal."""
        return {**d, "boundaries": self.boundaries} if self.boundaries != "none" else d

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tokenizer) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment] - mutable-looking value objects

    def __repr__(self) -> str:
        return f"<{type(self).__name__} kind={self.kind} vocab_size={self.vocab_size}>"


class _TableTokenizer(Tokenizer):
    """A tokenizer whose vocabulary is an explicit list of strings after the specials."""

    def __init__(self, symbols: list[str]) -> None:
        self.symbols = list(symbols)
        self.itos = list(SPECIAL_TOKENS) + self.symbols
        self.stoi = {s: i + len(SPECIAL_TOKENS) for i, s in enumerate(self.symbols)}

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def token(self, i: int) -> str:
        return self.itos[i]


def _vocabulary(counts: Counter, min_count: int, limit: int = 0) -> list[str]:
    """Symbols seen at least `min_count` times, most frequent first, ties in code-point order."""
    kept = [(s, c) for s, c in counts.items() if c >= min_count]
    kept.sort(key=lambda sc: (-sc[1], sc[0]))
    if limit:
        kept = kept[:limit]
    return [s for s, _ in kept]


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


def readable_bytes(data: bytes) -> str:
    """UTF-8 text where the bytes form whole characters, `<0xE2>` for each byte that does not
    (a byte-level BPE piece can hold the first two bytes of "—" and nothing else)."""
    out = []
    while data:
        try:
            out.append(data.decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            out.append(data[:exc.start].decode("utf-8"))
            out.extend(f"<0x{b:02X}>" for b in data[exc.start:exc.end])
            data = data[exc.end:]
    return "".join(out)


def _byte_level_alphabet() -> dict[str, int]:
    """The ByteLevel pre-tokenizer's character for each byte, inverted (char -> byte).

    Printable Latin-1 bytes stand for themselves; the other 68 (controls, space, no-break
    space, soft hyphen) are moved to U+0100 onwards in byte order, so "Ġ" (U+0120) is a space.
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = {chr(b): b for b in printable}
    moved = [b for b in range(256) if b not in table.values()]
    table.update({chr(0x100 + n): b for n, b in enumerate(moved)})
    return table


BYTE_LEVEL_ALPHABET = _byte_level_alphabet()


class BpeTokenizer(Tokenizer):
    """Byte-level BPE from the `tokenizers` library: any text round-trips, nothing is unknown."""

    kind = "bpe"

    def __init__(self, backend) -> None:
        self._backend = backend  # tokenizers.Tokenizer
        # Text that happens to read "<pad>" is text, not the special token: without this the
        # library turns it into id 0 and decode() loses it. (Not saved in its JSON: set here.)
        backend.encode_special_tokens = True

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int) -> BpeTokenizer:
        from tokenizers import Tokenizer as HfTokenizer
        from tokenizers import decoders, models, pre_tokenizers, trainers

        backend = HfTokenizer(models.BPE(unk_token=SPECIAL_TOKENS[UNK]))
        backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        backend.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=list(SPECIAL_TOKENS),  # in this order, so they get ids 0..3
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        backend.train_from_iterator(texts, trainer=trainer)
        return cls(backend)

    @classmethod
    def from_json(cls, text: str) -> BpeTokenizer:
        from tokenizers import Tokenizer as HfTokenizer

        return cls(HfTokenizer.from_str(text))

    @property
    def vocab_size(self) -> int:
        return self._backend.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        try:
            return self._backend.encode(text).ids
        except TypeError:  # the library's word for a string it cannot pass as UTF-8
            raise not_text_error(text) from None

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        try:
            return [e.ids for e in self._backend.encode_batch(texts)]
        except TypeError:
            raise not_text_error("".join(texts)) from None

    def decode(self, ids: Iterable[int]) -> str:
        return self._backend.decode([int(i) for i in ids], skip_special_tokens=True)

    def token(self, i: int) -> str:
        if i in SPECIAL_IDS:
            return SPECIAL_TOKENS[i]
        # Show the bytes the token stands for, not the byte-level alphabet ("Ġthe" -> " the").
        return self._backend.decode([i], skip_special_tokens=False)

    def token_bytes(self, i: int) -> bytes:
        """The UTF-8 bytes a (non-special) vocabulary entry stands for."""
        return bytes(BYTE_LEVEL_ALPHABET[c] for c in self._backend.id_to_token(i))

    def readable_token(self, i: int) -> str:
        if i in SPECIAL_IDS:
            return SPECIAL_TOKENS[i]
        return readable_bytes(self.token_bytes(i))

    def to_dict(self) -> dict:
        return self._described({"kind": self.kind, "tokenizer_json": self._backend.to_str()})


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
            tokenizer = BpeTokenizer.from_json(d["tokenizer_json"])
        except Exception as exc:  # noqa: BLE001 - any failure here is a damaged table
            raise UserFacingError(f"This model's tokenizer cannot be used: its BPE JSON "
                                  f"cannot be read ({exc}). The file was damaged or edited; "
                                  "use another checkpoint.") from None
    tokenizer.boundaries = d.get("boundaries", "none")
    return tokenizer
