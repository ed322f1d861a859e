"""Load a corpus: one text file, or every matching file under a folder, as a cancellable job.

Each file is read and decoded by file_reading.py: in 1 MB chunks, piece by piece, so the job
reports progress by bytes, can be cancelled between chunks, and never holds the interpreter
long enough to freeze the window.

A bad single file (binary, empty, unreadable, undecodable) fails the job with a message that
names it and says what to do. In a folder, bad files are skipped and listed in
`Corpus.skipped`; only a folder with nothing loadable fails.

Cleaning (cleaning.py): the loaded documents are cleaned by the `CleaningConfig` given
(`Corpus.cleaned` says what went, where), and what the cleaning rules would still remove is
looked for (`Corpus.cleanable`), so the window can offer it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.corpus import encodings, limits
from workbench.core.corpus.cleaning import CleaningReport, clean, detect
from workbench.core.corpus.file_reading import (
    COMPRESSED,
    UnusableFileError,
    decode_file,
    read_chunks,
)
from workbench.core.corpus.statistics import CorpusStats, statistics_steps
from workbench.core.corpus.text_chunks import Pacer
from workbench.core.events import Event, JobFinished, Notice, Progress
from workbench.core.jobs import JobSpec, UserFacingError, run_to_end

DEFAULT_GLOB = "*.txt *.md"
DOCUMENT_SEPARATOR = "\n"


@dataclass
class Corpus:
    name: str
    path: str
    documents: list[tuple[str, str]]  # (file name relative to `path`, text)
    warnings: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    encodings: dict[str, str] = field(default_factory=dict)  # file -> codec used
    size_bytes: int = 0
    stats: CorpusStats | None = None
    cleaning: CleaningConfig = field(default_factory=CleaningConfig)  # what was applied
    cleaned: CleaningReport = field(default_factory=CleaningReport)  # what it removed
    cleanable: CleaningReport = field(default_factory=CleaningReport)  # what it could remove

    @cached_property
    def text(self) -> str:
        """All documents joined by a newline, in the order they were loaded."""
        return DOCUMENT_SEPARATOR.join(text for _, text in self.documents)


def find_files(folder: Path, glob: str = DEFAULT_GLOB) -> list[Path]:
    """Files under `folder` (recursively, hidden ones left out) whose name matches a pattern.

    `glob` holds one or more patterns separated by spaces, commas or semicolons. A compressed
    file matches when its name without .gz/.bz2 does ("*.txt" finds "a.txt.gz").
    """
    patterns = [p for p in glob.replace(",", " ").replace(";", " ").split() if p] or ["*"]
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        name = path.name.lower()
        plain = name.rsplit(".", 1)[0] if Path(name).suffix in COMPRESSED else name
        if any(fnmatch.fnmatch(name, p.lower()) or fnmatch.fnmatch(plain, p.lower())
               for p in patterns):
            found.append(path)
    return found


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def load_corpus_steps(path: str | Path, glob: str = DEFAULT_GLOB, encoding: str | None = None,
                      cleaning: CleaningConfig | None = None, max_mb: int | None = None
                      ) -> Generator[Event, None, Corpus]:
    """Read, decode, clean and count a corpus; yields events and returns the `Corpus`.
    `max_mb` caps the text (limits.max_corpus_mb: a share of memory unless chosen)."""
    cleaning = cleaning or CleaningConfig()
    problems = cleaning.problems()
    if problems:
        raise UserFacingError("Cleaning: " + " ".join(problems))
    root = Path(path).expanduser()
    limit_mb = limits.max_corpus_mb(max_mb)
    budget = [limit_mb * 2**20, limit_mb]
    try:
        chosen = encodings.normalize_encoding(encoding)
    except ValueError as exc:
        raise UserFacingError(str(exc)) from None
    if not root.exists():
        raise UserFacingError(f"{root} does not exist. Check the path or choose another file.")
    folder = root.is_dir()
    files = find_files(root, glob) if folder else [root]
    if not files:
        raise UserFacingError(f"The folder {root} has no files matching '{glob}'. Change the "
                              "file filter (for example *.txt) or choose another folder.")
    corpus = Corpus(name=root.name, path=str(root), documents=[])
    total = sum(_size(f) for f in files) or None
    progress, pacer = [0], Pacer()
    for file in files:
        name = str(file.relative_to(root)) if folder else file.name
        try:
            chunks = yield from read_chunks(file, progress, total or 1, pacer, budget)
            status = Progress(progress[0], total or 1, f"Decoding {name}")
            text, used, warning = yield from decode_file(file, chunks, chosen, status)
        except UnusableFileError as problem:
            if not folder:
                raise
            corpus.skipped.append((name, problem.reason))
            yield Notice(f"Skipped {name}: {problem.reason}.")
            continue
        corpus.documents.append((name, text))
        corpus.encodings[name] = used
        corpus.size_bytes += sum(len(c) for c in chunks)
        if warning:
            corpus.warnings.append(warning)
            yield Notice(warning)
    if not corpus.documents:
        reasons = "; ".join(f"{n}: {r}" for n, r in corpus.skipped[:3])
        raise UserFacingError(f"None of the {len(files)} matching files in {root} could be "
                              f"loaded ({reasons}). Choose another folder or fix the files.")
    if corpus.skipped:
        corpus.warnings.append(f"{len(corpus.skipped)} of {len(files)} files were skipped; "
                               "see the list of skipped files.")
    yield Progress(progress[0], total or 1, "Looking for Gutenberg headers, markup and "
                   "control characters")
    corpus.cleaning = cleaning
    corpus.documents, corpus.cleaned = clean(corpus.documents, cleaning)
    corpus.cleanable = detect(corpus.documents)
    if not any(text.strip() for _, text in corpus.documents):
        raise UserFacingError("Cleaning removed the whole text of the corpus. Check the exclude "
                              "pattern (it may match everything) and load it again.")
    corpus.stats = yield from statistics_steps([text for _, text in corpus.documents])
    _ = corpus.text  # join the documents here, in the worker, not later on the GUI thread
    return corpus


def load_corpus_job(path: str | Path, glob: str = DEFAULT_GLOB,
                    encoding: str | None = None, cleaning: CleaningConfig | None = None,
                    max_mb: int | None = None) -> JobSpec:
    """The loading job: ends with `JobFinished(result=Corpus)` (statistics included)."""

    def job(control) -> Iterator[Event]:
        corpus = yield from load_corpus_steps(path, glob=glob, encoding=encoding,
                                              cleaning=cleaning, max_mb=max_mb)
        yield JobFinished(result=corpus)

    return JobSpec(f"Loading {Path(path).name}", job)


def load_corpus(path: str | Path, glob: str = DEFAULT_GLOB, encoding: str | None = None,
                cleaning: CleaningConfig | None = None, max_mb: int | None = None) -> Corpus:
    """Load without a job (scripts, the headless CLI); raises UserFacingError on bad input."""
    steps = load_corpus_steps(path, glob=glob, encoding=encoding, cleaning=cleaning,
                              max_mb=max_mb)
    return run_to_end(steps)
