"""The interface every tokenizer shares, and the numbering of the special tokens (see
tokenizers.py, which gathers the tokenizers and reads them back from their tables)."""

from __future__ import annotations

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

    # The ids a model reads at a text's start and writes at its end, and the ids that decode
    # to no text: the app's own tokenizers number them 0-3; a pretrained one (GPT-2's
    # <|endoftext|> is 50256) says its own.
    bos_id: int = BOS
    eos_id: int = EOS
    special_ids: frozenset[int] = SPECIAL_IDS

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
        return [self.bos_id, *ids] if self.boundaries != "none" else ids

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
