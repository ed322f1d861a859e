"""Text boundaries: cut a corpus into lines, sentences or paragraphs, each <bos> unit <eos>.

A language model trained on one unbroken stream never sees <bos> or <eos>, so generation from
an empty prompt starts at a token it never read and can never stop by sampling <eos>. With
boundaries the model learns both ends of a unit, as Jurafsky & Martin describe generation
(SLP3 ch. 9, sec. 9.4.3: start from <s>, sample until </s>).

- "lines": every line with text becomes one unit (the line break itself is replaced by the
  boundary; blank lines are dropped).
- "sentences": text up to a sentence end (. ! or ?, with closing quotes or brackets), runs
  of whitespace inside a sentence kept as they are; a sentence may cross line breaks and the
  chunks the corpus is encoded in.
- "paragraphs": text between blank lines, its own line breaks kept: in a play, one speech
  with its speaker ("Romeo.\nBut soft, what light..."), so a model generates a whole speech
  from <bos> and stops at its end (the four char-* sample models are trained so).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from workbench.core.corpus.tokenizers import BOS, EOS, BpeTokenizer, Tokenizer

# a sentence ends after . ! or ? (and any closing quotes/brackets) followed by whitespace
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'’”)\]]*\s+")
# a paragraph ends at a blank line (spaces or tabs on it allowed)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def units(text: str, mode: str) -> list[str]:
    """The lines or sentences of `text`, stripped, empty ones left out."""
    if mode == "lines":
        pieces = text.split("\n")
    elif mode == "sentences":
        pieces, start = [], 0
        for match in _SENTENCE_END.finditer(text):
            pieces.append(text[start:match.start()] + match.group().rstrip())
            start = match.end()
        pieces.append(text[start:])
    elif mode == "paragraphs":
        pieces = _BLANK_LINE.split(text)
    else:
        raise ValueError(f"Unknown boundaries {mode!r}; expected 'lines', 'sentences' or "
                         "'paragraphs'.")
    return [p.strip() for p in pieces if p.strip()]


def _encode_units(tokenizer: Tokenizer, pieces: list[str]) -> np.ndarray:
    """<bos> ids <eos> for every unit, as one array."""
    if not pieces:
        return np.zeros(0, dtype=np.int64)
    if isinstance(tokenizer, BpeTokenizer):
        encoded = [np.asarray(ids, dtype=np.int64) for ids in tokenizer.encode_batch(pieces)]
    else:
        encoded = [tokenizer.encode_array(p) for p in pieces]
    lengths = np.array([len(e) + 2 for e in encoded])
    out = np.empty(int(lengths.sum()), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    out[starts] = BOS
    out[starts + lengths - 1] = EOS
    for start, ids in zip(starts, encoded, strict=True):
        out[start + 1:start + 1 + len(ids)] = ids
    return out


class BoundaryEncoder:
    """Encodes a corpus chunk by chunk with boundaries, carrying an unfinished unit over.

    A chunk usually ends inside a sentence (chunks end at line breaks): the text after the
    last sentence end waits for the next chunk, so no sentence is cut in two."""

    def __init__(self, tokenizer: Tokenizer, mode: str) -> None:
        self.tokenizer = tokenizer
        self.mode = mode
        self.carry = ""

    def feed(self, chunk: str) -> np.ndarray:
        text = self.carry + chunk
        if self.mode == "lines":
            cut = text.rfind("\n") + 1
        else:
            pattern = _BLANK_LINE if self.mode == "paragraphs" else _SENTENCE_END
            ends = list(pattern.finditer(text))
            cut = ends[-1].end() if ends else 0
        self.carry = text[cut:]
        return _encode_units(self.tokenizer, units(text[:cut], self.mode))

    def finish(self) -> np.ndarray:
        rest, self.carry = self.carry, ""
        return _encode_units(self.tokenizer, units(rest, self.mode))


def encode_chunks(tokenizer: Tokenizer, chunks: Iterator[str], mode: str
                  ) -> Iterator[tuple[str, np.ndarray]]:
    """(chunk, its ids) for each chunk; with boundaries the last pair holds the carried rest
    (an empty chunk). Without boundaries the ids are the plain encoding."""
    if mode == "none":
        for chunk in chunks:
            yield chunk, tokenizer.encode_array(chunk)
        return
    encoder = BoundaryEncoder(tokenizer, mode)
    for chunk in chunks:
        yield chunk, encoder.feed(chunk)
    yield "", encoder.finish()
