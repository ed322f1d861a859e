"""A pretrained model's own tokenizer, read from its folder's `tokenizer.json` (the fast
tokenizer's file, through the `tokenizers` library the app already uses for BPE).

It keeps the model's numbering: GPT-2's ids are GPT-2's, and its one special token
<|endoftext|> (id 50256) is the model's start and end of text. The app's own tokenizers put
<pad>, <unk>, <bos> and <eos> at ids 0-3; this one says its own `bos_id`, `eos_id` and
`special_ids`, which generation and the text streams read. Typing "<|endoftext|>" in a prompt
gives the special token, as the model's library does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from workbench.core.corpus.bpe_tokenizer import BYTE_LEVEL_ALPHABET, readable_bytes
from workbench.core.corpus.tokenizer_base import Tokenizer, not_text_error


def is_byte_level(description: dict[str, Any]) -> bool:
    """Whether a tokenizer.json works on bytes written as the byte-level alphabet (GPT-2's
    "Ġ" for a space): its pre-tokenizer or decoder is ByteLevel."""
    parts = [description.get("pre_tokenizer") or {}, description.get("decoder") or {}]
    for part in list(parts):
        parts.extend(part.get("pretokenizers") or part.get("decoders") or [])
    return any(isinstance(p, dict) and p.get("type") == "ByteLevel" for p in parts)


class PretrainedTokenizer(Tokenizer):
    kind = "pretrained"

    def __init__(self, text: str, bos_id: int | None, eos_id: int | None) -> None:
        from tokenizers import Tokenizer as LibraryTokenizer

        self._json = text
        self._backend = LibraryTokenizer.from_str(text)
        self.byte_level = is_byte_level(json.loads(text))
        added = self._backend.get_added_tokens_decoder()
        self.special_ids = frozenset(i for i, token in added.items() if token.special)
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

    def decode(self, ids: Iterable[int]) -> str:
        return self._backend.decode([int(i) for i in ids], skip_special_tokens=True)

    def token(self, i: int) -> str:
        # the text the piece stands for (" the", not the byte alphabet's "Ġthe")
        return self._backend.decode([int(i)], skip_special_tokens=False)

    def token_bytes(self, i: int) -> bytes:
        """The UTF-8 bytes of a (non-special) piece of a byte-level vocabulary."""
        piece = self._backend.id_to_token(int(i)) or ""
        return bytes(BYTE_LEVEL_ALPHABET[c] for c in piece if c in BYTE_LEVEL_ALPHABET)

    def readable_token(self, i: int) -> str:
        if i in self.special_ids or not self.byte_level:
            return self.token(i)
        return readable_bytes(self.token_bytes(i))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "tokenizer_json": self._json, "bos_id": self.bos_id,
                "eos_id": self.eos_id}
