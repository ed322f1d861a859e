"""A pretrained model's own tokenizer, read from its folder's `tokenizer.json` (the fast
tokenizer's file, through the `tokenizers` library the app already uses for BPE).

It keeps the model's numbering: GPT-2's ids are GPT-2's, and its one special token
<|endoftext|> (id 50256) is the model's start and end of text. The app's own tokenizers put
<pad>, <unk>, <bos> and <eos> at ids 0-3; this one says its own `bos_id`, `eos_id` and
`special_ids`, which generation and the text streams read. Typing "<|endoftext|>" in a prompt
gives the special token, as the model's library does. BERT's WordPiece vocabulary brings its own
[MASK] (`mask_id`) and frames every input as [CLS] text [SEP] (`frame`, what `encode_prompt`
adds); its "##" pieces read as GPT-2's do (" word", "s"). A Llama vocabulary (SentencePiece's
BPE, TinyLlama's) writes a space as "▁" and falls back to one piece per byte ("<0xE2>") for a
character it has no piece for: its pieces read as text the same way (" word"), bytes joined
into their character, and its post-processor's <s> starts every probe and prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from workbench.core.corpus.bpe_tokenizer import BYTE_LEVEL_ALPHABET, readable_bytes
from workbench.core.corpus.tokenizer_base import Tokenizer, not_text_error

MASK_TOKEN = "[MASK]"  # BERT's, and the word the fill-in-the-blank console reads
METASPACE = "▁"  # U+2581, SentencePiece's mark of a space
BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # a byte-fallback piece


def _parts(description: dict[str, Any]) -> list[dict]:
    parts = [description.get("pre_tokenizer") or {}, description.get("decoder") or {}]
    for part in list(parts):
        parts.extend(part.get("pretokenizers") or part.get("decoders") or [])
    return [p for p in parts if isinstance(p, dict)]


def is_byte_level(description: dict[str, Any]) -> bool:
    """Whether a tokenizer.json works on bytes written as the byte-level alphabet (GPT-2's
    "Ġ" for a space): its pre-tokenizer or decoder is ByteLevel."""
    return any(p.get("type") == "ByteLevel" for p in _parts(description))


def is_metaspace(description: dict[str, Any]) -> bool:
    """Whether a tokenizer.json writes spaces as "▁" (SentencePiece style, Llama's): a
    Metaspace pre-tokenizer or decoder, or a decoder that replaces "▁" by a space."""
    return any(p.get("type") == "Metaspace"
               or (p.get("type") == "Replace" and (p.get("pattern") or {}).get("String")
                   == METASPACE) for p in _parts(description))


def continuation_prefix(description: dict[str, Any]) -> str:
    """The mark of a WordPiece piece that continues a word (BERT's "##"), or "" for a
    tokenizer without one."""
    for part in _parts(description):
        if part.get("type") == "WordPiece":
            return str(part.get("prefix", "##"))
    return ""


class PretrainedTokenizer(Tokenizer):
    kind = "pretrained"

    def __init__(self, text: str, bos_id: int | None, eos_id: int | None) -> None:
        from tokenizers import Tokenizer as LibraryTokenizer

        self._json = text
        self._backend = LibraryTokenizer.from_str(text)
        description = json.loads(text)
        self.alphabet = is_byte_level(description)
        self.metaspace = not self.alphabet and is_metaspace(description)
        self.byte_fallback = bool((description.get("model") or {}).get("byte_fallback"))
        # its pieces stand for UTF-8 bytes (a character may be split across pieces): the
        # byte-level alphabet's, or SentencePiece's text and byte pieces (see ByteTextStream)
        self.byte_level = self.alphabet or self.metaspace
        self.piece_prefix = continuation_prefix(description)
        added = self._backend.get_added_tokens_decoder()
        self.special_ids = frozenset(i for i, token in added.items() if token.special)
        # a masked LM's own [MASK] (BERT's id 103), None where the vocabulary has none
        self.mask_id = next((i for i, token in added.items()
                             if token.special and token.content == MASK_TOKEN), None)
        self.frame = self._frame()
        # no start or end token: -1 matches no id (generation then stops by length)
        self.bos_id = -1 if bos_id is None else int(bos_id)
        self.eos_id = -1 if eos_id is None else int(eos_id)

    @property
    def vocab_size(self) -> int:
        return self._backend.get_vocab_size(with_added_tokens=True)

    def encode(self, text: str) -> list[int]:
        try:  # no special tokens added around it: the prompt is what the user typed
            return self._backend.encode(text, add_special_tokens=False).ids
        except TypeError:  # the library's word for a string it cannot pass as UTF-8
            raise not_text_error(text) from None

    def _frame(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The ids the tokenizer's post-processor puts before and after one text (BERT's
        [CLS] and [SEP]; nothing for GPT-2), read from how it frames a one-word text."""
        encoding = self._backend.encode("a", add_special_tokens=True)
        inside = [i for i, s in enumerate(encoding.sequence_ids) if s is not None]
        if not inside:
            return tuple(encoding.ids), ()
        return tuple(encoding.ids[: inside[0]]), tuple(encoding.ids[inside[-1] + 1:])

    def encode_prompt(self, text: str) -> list[int]:
        """What the model reads for a probe: the text framed as its tokenizer frames every
        input (BERT was trained on [CLS] text [SEP]; GPT-2's frame is empty)."""
        prefix, suffix = self.frame
        return [*prefix, *super().encode_prompt(text), *suffix]

    def decode(self, ids: Iterable[int]) -> str:
        return self._backend.decode([int(i) for i in ids], skip_special_tokens=True)

    def token(self, i: int) -> str:
        # the text the piece stands for (" the", not the byte alphabet's "Ġthe")
        return self._backend.decode([int(i)], skip_special_tokens=False)

    def token_bytes(self, i: int) -> bytes:
        """The UTF-8 bytes of a (non-special) piece of a byte-level vocabulary, or of a
        SentencePiece one ("▁" a space, "<0xE2>" the byte it names)."""
        piece = self._backend.id_to_token(int(i)) or ""
        if self.metaspace:
            byte = BYTE_PIECE.fullmatch(piece) if self.byte_fallback else None
            return bytes([int(byte.group(1), 16)]) if byte else \
                piece.replace(METASPACE, " ").encode("utf-8")
        return bytes(BYTE_LEVEL_ALPHABET[c] for c in piece if c in BYTE_LEVEL_ALPHABET)

    def readable_token(self, i: int) -> str:
        if i in self.special_ids:
            return self.token(i)
        if self.piece_prefix:
            # as GPT-2's pieces read: " word" starts a word, "s" continues one ("##s"), so
            # the pieces side by side spell the text
            piece = self._backend.id_to_token(int(i)) or ""
            return piece[len(self.piece_prefix):] if piece.startswith(self.piece_prefix) \
                else " " + piece
        if not self.byte_level:
            return self.token(i)
        return readable_bytes(self.token_bytes(i))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "tokenizer_json": self._json, "bos_id": self.bos_id,
                "eos_id": self.eos_id}
