"""Plain text, one sentence a line, for masked-LM pretraining (SEEDS T16: BERT's input).

Each non-blank line is one training sentence (verse reads line by line, as the shipped
Shakespeare does). A folder is read file by file in name order. Lines longer than the model's
context are cut by the task, not here; very short lines (a speaker's name, "ACT I") are kept
or dropped by `min_words`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.core.data.text_files import MalformedDataError, read_lines, text_files


@dataclass(frozen=True)
class Sentences:
    lines: tuple[str, ...]
    sources: tuple[str, ...]  # "file.txt:12" for each line
    dropped_short: int = 0  # lines under `min_words` words


def read_sentences(path: str | Path, min_words: int = 1) -> Sentences:
    lines, sources, short = [], [], 0
    for file in text_files(Path(path), (".txt", ".text")):
        for where, line in read_lines(file):
            text = line.strip()
            if not text:
                continue
            if len(text.split()) < min_words:
                short += 1
                continue
            lines.append(text)
            sources.append(where)
    if not lines:
        raise MalformedDataError(f"{Path(path).name} holds no sentences of {min_words} or more "
                             "words (one sentence a line is expected).")
    return Sentences(tuple(lines), tuple(sources), short)
