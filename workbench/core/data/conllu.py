"""CoNLL-U (Universal Dependencies) for part-of-speech tagging (SLP3 9.4.1, sequence labelling).

The format (universaldependencies.org/format.html), as far as a tagger needs it:
- a sentence is a run of lines ended by a blank line; comment lines start with '#'
  (`# text = …` keeps the sentence as written);
- a word line has 10 TAB-separated fields: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC,
  IDs 1, 2, 3 … in order;
- a multi-word token line has a range ID ("3-4", e.g. "didn't" over the words "did" and "n't"):
  it gives the surface form only, has no tags, and the words that follow carry them; the tagger
  reads the words, so the range line is skipped (its form is kept for showing the sentence);
- an empty node has a decimal ID ("8.1", enhanced dependencies only): not a word of the basic
  sentence, skipped.
The tag column is UPOS (universal tags, 17) or XPOS (the treebank's own, e.g. Penn tags); "_"
in the chosen column of a word is malformed for tagging. Malformed lines are named.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from workbench.core.data.text_files import MalformedDataError, read_lines, text_files

TAG_COLUMNS = {"upos": 3, "xpos": 4}
_WORD_ID = re.compile(r"[1-9]\d*$")
_RANGE_ID = re.compile(r"([1-9]\d*)-([1-9]\d*)$")
_EMPTY_ID = re.compile(r"\d+\.[1-9]\d*$")


@dataclass(frozen=True)
class TaggedSentence:
    words: tuple[str, ...]
    tags: tuple[str, ...]
    text: str  # the `# text =` comment, or the words joined by spaces
    source: str  # "file.conllu:12", the sentence's first line


@dataclass(frozen=True)
class TaggedData:
    sentences: tuple[TaggedSentence, ...]
    column: str  # "upos" or "xpos"

    @property
    def tags(self) -> list[str]:
        return sorted({t for s in self.sentences for t in s.tags})

    def tag_counts(self) -> Counter:
        return Counter(t for s in self.sentences for t in s.tags)

    def token_count(self) -> int:
        return sum(len(s.words) for s in self.sentences)


class _Sentence:
    """The lines of one sentence as they are read."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.words: list[str] = []
        self.tags: list[str] = []
        self.text = ""


def parse_conllu(lines: list[tuple[str, str]], source: str, column: str = "upos") -> TaggedData:
    if column not in TAG_COLUMNS:
        raise ValueError(f"column must be one of {tuple(TAG_COLUMNS)}, got {column!r}")
    field = TAG_COLUMNS[column]
    sentences: list[TaggedSentence] = []
    problems: list[str] = []
    current: _Sentence | None = None

    def close() -> None:
        nonlocal current
        if current is not None and current.words:
            text = current.text or " ".join(current.words)
            sentences.append(TaggedSentence(tuple(current.words), tuple(current.tags), text,
                                            current.where))
        elif current is not None:
            problems.append(f"{current.where}: a sentence with comments but no word lines")
        current = None

    for where, line in lines:
        if not line.strip():
            close()
            continue
        if current is None:
            current = _Sentence(where)
        if line.startswith("#"):
            key, _, value = line[1:].partition("=")
            if key.strip() == "text":
                current.text = value.strip()
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            problems.append(f"{where}: {len(fields)} field{'s' * (len(fields) != 1)}, "
                            "expected 10 separated by TABs")
            continue
        token_id = fields[0]
        if _RANGE_ID.match(token_id) or _EMPTY_ID.match(token_id):
            continue  # a multi-word token's surface form, or an empty node: not a tagged word
        if not _WORD_ID.match(token_id):
            problems.append(f"{where}: '{token_id}' is not a word ID (1, 2, … or 3-4 or 8.1)")
            continue
        if int(token_id) != len(current.words) + 1:
            problems.append(f"{where}: word ID {token_id} out of order (expected "
                            f"{len(current.words) + 1})")
            continue
        form, tag = fields[1], fields[field]
        if not form or tag in ("", "_"):
            what = "form" if not form else f"{column.upper()} tag"
            problems.append(f"{where}: the {what} is missing")
            continue
        current.words.append(form)
        current.tags.append(tag)
    close()
    if problems:
        raise MalformedDataError.listing(source, problems)
    if not sentences:
        raise MalformedDataError(f"{source} holds no sentences (word lines separated by blank "
                             "lines, as CoNLL-U has them).")
    return TaggedData(tuple(sentences), column)


def read_conllu(path: str | Path, column: str = "upos") -> TaggedData:
    """Read a .conllu file, or every .conllu file of a folder in name order."""
    sentences: list[TaggedSentence] = []
    for file in text_files(Path(path), (".conllu", ".conll")):
        sentences.extend(parse_conllu(read_lines(file), file.name, column).sentences)
    return TaggedData(tuple(sentences), column)
