"""Byte-level BPE from the `tokenizers` library (Rust): any text round-trips, since it works on
UTF-8 bytes, and nothing is unknown. The library is imported only when a BPE tokenizer is
built or read, so the window starts without it."""

from __future__ import annotations

from collections.abc import Iterable

from workbench.core.corpus.tokenizer_base import (
    SPECIAL_IDS,
    SPECIAL_TOKENS,
    UNK,
    Tokenizer,
    not_text_error,
)


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
    byte_level = True  # its pieces are UTF-8 bytes (see ByteTextStream)

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
