"""Corpus cleaning: what a Project Gutenberg text carries that is not the author's text.

A Gutenberg e-book starts with a licence header ending in a "*** START OF THE PROJECT
GUTENBERG EBOOK ... ***" line (older ones: "*END*THE SMALL PRINT!...") and ends with "*** END
OF ..." (or "End of the Project Gutenberg EBook of ...") and the licence again. Its text marks
italics as _word_ and some editions bold as ~word~; files passed through DOS end in a 0x1A
byte, and other C0 control characters slip in. A language model trained on them learns the
licence and the underscores. Cleaning removes, per document:

- `gutenberg`: everything up to and including the start marker line, and from the end marker
  line on (a document without a marker loses nothing);
- `markup`: the underscores or tildes around _a phrase_ / ~a phrase~ (the words stay);
- `control`: C0 control characters except newline and tab (0x00-0x08, 0x0B-0x1F);
- `exclude`: every match of the user's regular expression (multi-line mode: ^ and $ match at
  line ends; start it with (?s) for a pattern whose . crosses lines, such as a section from
  one heading to the next); a match of whole lines takes its line end with it.

`detect` tells what each rule would remove from raw documents, so the window can offer the
cleaning; `clean` applies a `CleaningConfig` and reports what it removed, with where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.corpus.tokenizers import PATTERN_SECONDS, PATTERN_SECONDS_PER_CHAR
from workbench.core.jobs import UserFacingError

START = re.compile(r"^(?:\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*|"
                   r"\*END\*THE SMALL PRINT!.*)$", re.MULTILINE | re.IGNORECASE)
END = re.compile(r"^(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG.*|"
                 r"End of (?:the )?Project Gutenberg(?:'s)? .*)$", re.MULTILINE | re.IGNORECASE)
# A marked phrase may run over a line end (verse, a wrapped line) but not over a blank line
# (`unmark` leaves such a match as it is), and is at most MARKED_CHARS long: each opening mark
# is then followed at most that far, so the scan is linear even in a long line of marks that
# never close ("_a _a _a"). One character class, not an alternation that excludes blank lines
# inside the pattern: that form scanned a 600k-character line of "_ab_ " 6 times slower.
MARKED_CHARS = 400
MARKUP = re.compile(rf"(?<![\w_])_(?=[^\s_])([^_]{{0,{MARKED_CHARS}}}?[^\s_])_(?![\w_])|"
                    rf"(?<![\w~])~(?=[^\s~])([^~]{{0,{MARKED_CHARS}}}?[^\s~])~(?![\w~])")
BLANK_LINE = re.compile(r"\n[ \t]*\n")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")
KINDS = {"gutenberg": "Project Gutenberg header and footer",
         "markup": "_italic_ and ~bold~ marks", "control": "control characters",
         "exclude": "matches of the exclude pattern"}
CHUNK = 1 << 18  # characters per regex call (see _line_chunks)
EXAMPLES = 200  # removals kept with their text, per report (the counts cover all)


@dataclass(frozen=True)
class Removal:
    kind: str  # a key of KINDS
    document: str
    line: int  # 1-based, in the document before cleaning
    text: str  # what went (shortened)
    chars: int


@dataclass
class CleaningReport:
    counts: dict[str, int] = field(default_factory=dict)  # kind -> pieces removed
    chars: dict[str, int] = field(default_factory=dict)  # kind -> characters removed
    documents: dict[str, set[str]] = field(default_factory=dict)  # kind -> documents touched
    examples: list[Removal] = field(default_factory=list)

    def add(self, removal: Removal) -> None:
        self.counts[removal.kind] = self.counts.get(removal.kind, 0) + 1
        self.chars[removal.kind] = self.chars.get(removal.kind, 0) + removal.chars
        self.documents.setdefault(removal.kind, set()).add(removal.document)
        if len(self.examples) < EXAMPLES:
            self.examples.append(removal)

    @property
    def empty(self) -> bool:
        return not self.counts

    def summary(self) -> str:
        """One line per kind: "Project Gutenberg header and footer: 3 files, 12,345 chars"."""
        lines = []
        for kind, title in KINDS.items():
            if kind in self.counts:
                files = len(self.documents[kind])
                lines.append(f"{title}: {self.counts[kind]:,} in {files} "
                             f"file{'s' if files != 1 else ''} ({self.chars[kind]:,} characters)")
        return "\n".join(lines)

    def listing(self) -> str:
        """What went, where: one block per removal (the first EXAMPLES of them)."""
        blocks = [f"{r.document}, line {r.line} ({KINDS[r.kind]}, {r.chars:,} characters):\n"
                  f"    {r.text}" for r in self.examples]
        more = sum(self.counts.values()) - len(self.examples)
        if more > 0:
            blocks.append(f"… and {more:,} more.")
        return "\n".join(blocks)


def _shown(text: str, limit: int = 160) -> str:
    text = "".join(f"<0x{ord(c):02X}>" if CONTROL.fullmatch(c) else c for c in text)
    text = text.replace("\n", "↵")
    return text if len(text) <= limit else text[: limit // 2] + " … " + text[-limit // 2:]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class _LineCounter:
    """The line of each of a rising series of offsets, counting only the text between two
    of them: counting from the start for every match made a cleaning quadratic (a pattern
    matching each of 500,000 characters took 49 s)."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def gutenberg_span(text: str) -> tuple[int, int]:
    """(start, end) of the book inside its Gutenberg header and footer (the whole text when
    it has no markers)."""
    start = START.search(text)
    begin = 0 if start is None else min(start.end() + 1, len(text))
    end = END.search(text, begin)
    return begin, len(text) if end is None else end.start()


def clean_document(name: str, text: str, config: CleaningConfig,
                   report: CleaningReport) -> str:
    """The document cleaned by `config`; every removal is added to `report`."""
    if config.gutenberg:
        begin, end = gutenberg_span(text)
        if begin > 0:
            report.add(Removal("gutenberg", name, 1, _shown(text[:begin]), begin))
        if end < len(text):
            report.add(Removal("gutenberg", name, _line(text, end), _shown(text[end:]),
                               len(text) - end))
        base_line = _line(text, begin) - 1
        text = text[begin:end]
    else:
        base_line = 0
    if config.exclude:
        text = _remove(text, _exclude_pattern(config.exclude), "exclude", name, base_line,
                       report, whole_lines=True)
    if config.markup:
        text = "".join(_unmark(piece, name, base_line + lines, report)
                       for piece, lines in _line_chunks(text))
    if config.control:
        text = "".join(_remove(piece, CONTROL, "control", name, base_line + lines, report)
                       for piece, lines in _line_chunks(text))
    return text


def _line_chunks(text: str):
    """(piece, line ends before it): the text cut after a line end every ~CHUNK characters.
    One regex call holds the interpreter, and so the window, until it ends (a second and more
    over 20 MB); between pieces the GUI thread gets its turn. A piece ends at a blank line
    where there is one near: markup may run over a line end but never over a blank line, so
    the pieces find the same matches as the whole text."""
    start, lines = 0, 0
    while start < len(text):
        end = text.find("\n\n", start + CHUNK, start + 4 * CHUNK)
        end = end + 1 if end >= 0 else text.find("\n", start + CHUNK)
        end = len(text) if end < 0 else end + 1
        piece = text[start:end]
        yield piece, lines
        lines += piece.count("\n")
        start = end


def _unmark(text: str, name: str, base_line: int, report: CleaningReport) -> str:
    line_of = _LineCounter(text)

    def unmark(match: re.Match) -> str:
        inner = match.group(1) if match.group(1) is not None else match.group(2)
        if BLANK_LINE.search(inner):  # marks a paragraph apart are not one phrase
            return match.group(0)
        report.add(Removal("markup", name, base_line + line_of(match.start()),
                           _shown(match.group(0)), 2))
        return inner
    return MARKUP.sub(unmark, text)


def _exclude_pattern(pattern: str):
    """The user's exclude pattern, compiled by the `regex` module (Python's syntax), which
    can stop a match after a time limit; `UserFacingError` when it is not a valid pattern."""
    import regex

    try:
        return regex.compile(pattern, regex.MULTILINE)
    except (regex.error, TypeError) as exc:
        raise UserFacingError(f"The exclude pattern {pattern!r} is not a valid regular "
                              f"expression: {exc}. Fix it in the cleaning settings.") from None


def _exclude_spans(pattern, text: str) -> list[tuple[int, int]]:
    """Every match of the exclude pattern, within a time limit (as the word pattern's): a
    pattern that backtracks catastrophically, such as ^(a|aa)+$ on a line of a's, would
    otherwise hold the loading (or the window) for hours, deaf to Stop. The limit covers the
    whole iteration, so only the spans are taken here; the report is made afterwards."""
    # the limit counts the Python loop over the matches too: ten times the word pattern's
    limit = PATTERN_SECONDS + 10 * PATTERN_SECONDS_PER_CHAR * len(text)
    try:  # concurrent: the match releases the interpreter, so the window keeps drawing
        return [m.span() for m in pattern.finditer(text, timeout=limit, concurrent=True)]
    except TimeoutError:
        raise UserFacingError(
            f"The exclude pattern {pattern.pattern!r} took over {limit:.0f} s of processor "
            f"time on {len(text):,} characters: it backtracks catastrophically (nested or "
            r"overlapping repetition such as (a|aa)+ or (\w+\s?)*). Simplify it, or clear "
            "the exclude pattern.") from None


def _remove(text: str, pattern, kind: str, name: str, base_line: int,
            report: CleaningReport, whole_lines: bool = False) -> str:
    pieces, last = [], 0
    line_of = _LineCounter(text)
    spans = _exclude_spans(pattern, text) if kind == "exclude" else (
        m.span() for m in pattern.finditer(text))
    for start, end in spans:
        if end == start:
            continue  # an empty match removes nothing
        if whole_lines and (start == 0 or text[start - 1] == "\n") and end < len(text) \
                and text[end] == "\n":
            end += 1  # a removed line takes its line end with it
        if start < last:
            continue
        pieces.append(text[last:start])
        report.add(Removal(kind, name, base_line + line_of(start), _shown(text[start:end]),
                           end - start))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def clean(documents: list[tuple[str, str]], config: CleaningConfig
          ) -> tuple[list[tuple[str, str]], CleaningReport]:
    report = CleaningReport()
    if not config.active:
        return documents, report
    cleaned = [(name, clean_document(name, text, config, report)) for name, text in documents]
    return cleaned, report


def detect(documents: list[tuple[str, str]]) -> CleaningReport:
    """What each cleaning rule would remove from these documents, each rule on its own (a
    0x1A byte after the Gutenberg footer counts as a control character too): the window
    offers the cleaning when this is not empty."""
    report = CleaningReport()
    for rule in ("gutenberg", "markup", "control"):
        config = CleaningConfig(**{rule: True})
        for name, text in documents:
            clean_document(name, text, config, report)
    return report
