"""Reading a data file's lines with their locations, and the error that names bad lines."""

from __future__ import annotations

from pathlib import Path

from workbench.core.corpus.limits import (
    NotRegularFileError,
    file_kind,
    limit_advice,
    max_corpus_mb,
    open_regular,
)
from workbench.core.jobs import UserFacingError

MAX_LISTED = 5  # malformed lines named in one message; the rest are counted


class MalformedDataError(UserFacingError):
    """A data file that cannot be read as the task's format; the message names the lines."""

    @classmethod
    def listing(cls, source: str, problems: list[str]) -> MalformedDataError:
        shown = "; ".join(problems[:MAX_LISTED])
        more = len(problems) - MAX_LISTED
        tail = f"; and {more} more line{'s' * (more != 1)}" if more > 0 else ""
        return cls(f"{source} has {len(problems)} malformed line"
                   f"{'s' * (len(problems) != 1)}: {shown}{tail}. Fix the file; nothing was "
                   "loaded.")


def read_lines(path: Path) -> list[tuple[str, str]]:
    """(location "name:line", text) for every line of a UTF-8 file (a BOM is dropped).

    Only a regular file is read, and no more of it than the corpus limit (a data file named by
    mistake, say a 30 GB dump or /dev/zero, stops with a message instead of filling memory)."""
    limit_mb = max_corpus_mb()
    try:
        with open_regular(path) as handle:
            data = handle.read(limit_mb * 2**20 + 1)
    except NotRegularFileError as exc:
        raise UserFacingError(f"{path} is {exc.kind}, not a data file. Choose a text file."
                              ) from None
    except OSError as exc:
        raise UserFacingError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if len(data) > limit_mb * 2**20:
        raise UserFacingError(f"{path.name} is larger than {limit_mb:,} MB; nothing was loaded. "
                              + limit_advice(limit_mb))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise MalformedDataError(f"{path.name}:{line} is not UTF-8 (byte {exc.start}). Save the "
                             "file as UTF-8 and load it again.") from None
    return [(f"{path.name}:{number}", line.rstrip("\r"))
            for number, line in enumerate(text.split("\n"), start=1)]


DOCUMENTATION = ("readme", "license", "licence", "provenance")  # beside data, not data


def text_files(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The file itself, or the files of a folder with one of `suffixes`, in name order (a
    folder's README or LICENSE is documentation, not data)."""
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes
                       and not p.name.lower().startswith(DOCUMENTATION))
        if files:
            return files
        raise UserFacingError(f"The folder {path} has no {' or '.join(suffixes)} files.")
    if path.exists():  # a FIFO or a device: reading it would block or never end
        raise UserFacingError(f"{path} is {file_kind(path)}, not a data file. Choose a text "
                              "file.")
    raise UserFacingError(f"{path} does not exist. Choose the data file again.")
