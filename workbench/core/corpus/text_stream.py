"""Decode token ids one at a time, at a constant cost per id, into the same text as `decode`.

A generation streams its text token by token. Decoding the whole continuation again for every
token (to find what the last one added) costs more with every token: at 5,000 tokens it took
more than half of the generation's time. A `TextStream` keeps only what the next id needs:

- char and word tokenizers: the last id that produced text. Their `decode` is local: a char
  token is its text; the word tokenizer joins words with one space and then removes the space
  before some punctuation and after an opening bracket or line break, a rule that looks at the
  two words around that space only. So the text an id adds is decode([previous, id]) minus
  decode([previous]).
- byte-level BPE: a token stands for bytes, and a character may be split across tokens. The
  bytes go through an incremental UTF-8 decoder that holds an unfinished character back until
  its last byte comes; `end()` turns bytes that never completed into U+FFFD, as `decode` does.

For any ids, "".join(stream.add(i) for i in ids) + stream.end() == tokenizer.decode(ids).
"""

from __future__ import annotations

import codecs

from workbench.core.corpus.tokenizers import UNK, Tokenizer


class TextStream:
    """The text each id adds to the decoded text so far (char and word tokenizers)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._previous: int | None = None  # the last id that produced text
        self._previous_text = ""

    def add(self, token_id: int) -> str:
        token_id = int(token_id)
        if token_id in self.tokenizer.special_ids and token_id != UNK:
            return ""  # pad, bos and eos decode to nothing and change nothing around them
        text = self.tokenizer.decode([token_id])
        piece = text
        if self._previous is not None:
            both = self.tokenizer.decode([self._previous, token_id])
            if not both.startswith(self._previous_text):
                raise ValueError(f"{type(self.tokenizer).__name__} does not decode locally: "
                                 f"{both!r} does not start with {self._previous_text!r}")
            piece = both[len(self._previous_text):]
        self._previous, self._previous_text = token_id, text
        return piece

    def end(self) -> str:
        """Text still held back (none for these tokenizers)."""
        return ""


class ByteTextStream(TextStream):
    """Byte-level BPE: each token's bytes through an incremental UTF-8 decoder."""

    def __init__(self, tokenizer) -> None:
        super().__init__(tokenizer)
        self._bytes = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, token_id: int) -> str:
        token_id = int(token_id)
        if token_id in self.tokenizer.special_ids:
            return ""  # decode skips every special token, <unk> included
        return self._bytes.decode(self.tokenizer.token_bytes(token_id))

    def end(self) -> str:
        return self._bytes.decode(b"", final=True)


def text_stream(tokenizer: Tokenizer) -> TextStream:
    """A fresh stream for `tokenizer`'s ids."""
    if getattr(tokenizer, "byte_level", False):
        return ByteTextStream(tokenizer)
    return TextStream(tokenizer)
