"""Reading (source, target) pairs from a tab-separated file.

One pair per line. The source and target columns are chosen by number (1-based), so a file
with more columns works too: Tatoeba's exports have `id<TAB>sentence<TAB>id<TAB>translation`,
so source column 2 and target column 4. An optional header line is skipped. Blank lines are
skipped. Everything is checked before anything is returned: a malformed file raises
`UserFacingError` naming its first bad line, and no pairs at all are loaded from it.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError

MAX_BYTES = bounded.LIMITS["task data"]  # beyond this a file of pairs is surely the wrong file


def read_pairs(path: str | Path, source_column: int = 1, target_column: int = 2,
               skip_header: bool = False) -> list[tuple[str, str]]:
    path = Path(path).expanduser()
    if not path.exists():
        raise UserFacingError(f"The file of pairs {path} does not exist. Choose a tab-separated "
                              "file with one source<TAB>target pair per line.")
    if source_column == target_column:
        raise UserFacingError(f"Source and target are both column {source_column}. Choose two "
                              "different columns.")
    try:  # a regular file only (a folder, FIFO or device is named), no larger than MAX_BYTES
        data = bounded.read_bytes(path, "task data", limit=MAX_BYTES)
    except bounded.FileTooLargeError as exc:
        size = f"{exc.size / 2**20:.0f} MB" if exc.size is not None else "too large"
        raise UserFacingError(f"{path.name} is {size}; a file of pairs larger than "
                              f"{MAX_BYTES // 2**20} MB is not read. Use a smaller file."
                              ) from None
    except OSError as exc:
        raise UserFacingError(f"The file of pairs cannot be read: {exc.strerror or exc}. "
                              "Choose a tab-separated file with one source<TAB>target pair "
                              "per line.") from None
    pairs: list[tuple[str, str]] = []
    needed = max(source_column, target_column)
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as exc:
            raise UserFacingError(f"{path.name}, line {number}: not UTF-8 text (byte "
                                  f"{exc.start + 1} of the line). Save the file as UTF-8."
                                  ) from None
        if (number == 1 and skip_header) or not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < needed:
            raise UserFacingError(
                f"{path.name}, line {number}: {len(fields)} tab-separated "
                f"column{'s' if len(fields) != 1 else ''}, but the source is column "
                f"{source_column} and the target column {target_column}. Separate the columns "
                "with tabs, or choose other columns.")
        source, target = fields[source_column - 1].strip(), fields[target_column - 1].strip()
        for side, text in (("source", source), ("target", target)):
            if not text:
                raise UserFacingError(f"{path.name}, line {number}: the {side} (column "
                                      f"{source_column if side == 'source' else target_column}"
                                      ") is empty. Remove the line or fill it in.")
        pairs.append((source, target))
    if not pairs:
        raise UserFacingError(f"{path.name} holds no pairs. Each line needs a source and a "
                              "target separated by a tab.")
    return pairs
