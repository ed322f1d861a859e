"""Labelled sentences: one `text<TAB>label` a line, for sequence classification (SLP3 9.4.2).

Any label set works ("0"/"1", "pos"/"neg"/"neutral", topic names). A file may have a header row
(`sentence<TAB>label`) and more than two columns; then the text and label columns are chosen by
index or by header name. Blank lines are skipped. A line that does not fit (too few columns, an
empty text or label) is malformed: the error names every such line (the first few), and nothing
is loaded half-way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from workbench.core.data.text_files import MalformedDataError, read_lines, text_files

HEADER_CHOICES = ("auto", "yes", "no")


@dataclass(frozen=True)
class LabelledExample:
    text: str
    label: str
    source: str  # "file.txt:12", so a report can point back at the line


@dataclass(frozen=True)
class LabelledData:
    examples: tuple[LabelledExample, ...]
    header: tuple[str, ...] | None  # the header row's cells, when the file had one
    text_column: int
    label_column: int

    @property
    def labels(self) -> list[str]:
        """The label set in a stable order: numbers numerically, other labels alphabetically."""
        return sorted({e.label for e in self.examples}, key=_label_key)

    def counts(self) -> Counter:
        return Counter(e.label for e in self.examples)


def _label_key(label: str) -> tuple:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _column(choice: int | str, header: tuple[str, ...] | None, width: int, what: str,
            source: str) -> int:
    """A column given as a 0-based index (negative counts from the end) or a header name."""
    if isinstance(choice, str) and not choice.lstrip("-").isdigit():
        if header is None:
            raise MalformedDataError(f"{source} has no header row, so the {what} column cannot be "
                                 f"named '{choice}'. Give its number (0 = first) instead.")
        if choice not in header:
            raise MalformedDataError(f"{source}: the header has no column '{choice}' (it has "
                                 f"{', '.join(header)}). Choose the {what} column again.")
        return header.index(choice)
    index = int(choice)
    if not -width <= index < width:
        raise MalformedDataError(f"{source}: the {what} column {index} does not exist; the rows "
                             f"have {width} columns (0 to {width - 1}).")
    return index % width


def _looks_like_header(rows: list[list[str]], label_column: int) -> bool:
    """A first row whose label cell is no other row's label, while the other labels repeat
    (a real label set), is a header ("sentence<TAB>label")."""
    if len(rows) < 3:
        return False
    first = rows[0][label_column] if len(rows[0]) > abs(label_column) else None
    labels = Counter(r[label_column] for r in rows[1:] if len(r) > abs(label_column))
    repeated = sum(c for c in labels.values() if c > 1)
    return first is not None and first not in labels and repeated >= len(rows[1:]) // 2


def parse_labelled(lines: list[tuple[str, str]], source: str, text_column: int | str = 0,
                   label_column: int | str = -1, header: str = "auto") -> LabelledData:
    """Parse (location, line) pairs; see the module doc. `header` is auto, yes or no."""
    if header not in HEADER_CHOICES:
        raise ValueError(f"header must be one of {HEADER_CHOICES}, got {header!r}")
    rows = [(where, line.split("\t")) for where, line in lines if line.strip()]
    if not rows:
        raise MalformedDataError(f"{source} holds no labelled lines. Each line should read "
                             "text<TAB>label.")
    width = len(rows[0][1])
    if width < 2:
        raise MalformedDataError(f"{rows[0][0]}: no TAB on the first line. Each line should read "
                             "text<TAB>label (a header row may come first).")
    raw_label = label_column if isinstance(label_column, int) or label_column.lstrip(
        "-").isdigit() else -1
    has_header = header == "yes" or (header == "auto" and _looks_like_header(
        [cells for _, cells in rows], int(raw_label)))
    names = tuple(c.strip() for c in rows[0][1]) if has_header else None
    text_index = _column(text_column, names, width, "text", source)
    label_index = _column(label_column, names, width, "label", source)
    if text_index == label_index:
        raise MalformedDataError(f"{source}: the text and label columns are the same column "
                             f"({text_index}). Choose two different columns.")
    examples, problems = [], []
    for where, cells in rows[1:] if has_header else rows:
        if len(cells) != width:
            problems.append(f"{where}: {len(cells)} column{'s' * (len(cells) != 1)}, expected "
                            f"{width} (cells are separated by TABs)")
            continue
        text, label = cells[text_index].strip(), cells[label_index].strip()
        if not text or not label:
            problems.append(f"{where}: the {'text' if not text else 'label'} is empty")
            continue
        examples.append(LabelledExample(text, label, where))
    if problems:
        raise MalformedDataError.listing(source, problems)
    if not examples:
        raise MalformedDataError(f"{source} has a header row but no labelled lines after it.")
    return LabelledData(tuple(examples), names, text_index, label_index)


def read_labelled(path: str | Path, text_column: int | str = 0, label_column: int | str = -1,
                  header: str = "auto") -> LabelledData:
    """Read a file, or every .txt/.tsv file of a folder (in name order), as one labelled set.
    Each file may have its own header row."""
    path = Path(path)
    examples: list[LabelledExample] = []
    data = None
    for file in text_files(path, (".txt", ".tsv")):
        data = parse_labelled(read_lines(file), file.name, text_column, label_column, header)
        examples.extend(data.examples)
    return LabelledData(tuple(examples), data.header, data.text_column, data.label_column)
