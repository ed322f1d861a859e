"""One corpus file's bytes to text, for loading.py: read in 1 MB chunks (plain, .gz or .bz2, only
regular files), so the job reports progress by bytes and can be cancelled between chunks;
decoded and its line endings made "\\n" piece by piece too, so no single call holds the
interpreter long enough to freeze the window. How bytes become text is decided in `encodings`
(BOMs, user choice, UTF-8, detection); a guessed encoding is always reported as a warning,
never applied silently. A file that cannot be used raises `UnusableFileError` naming why.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
from collections.abc import Generator
from pathlib import Path

from workbench.core.corpus import encodings, limits
from workbench.core.corpus.text_chunks import Pacer
from workbench.core.events import Event, Progress
from workbench.core.jobs import UserFacingError

READ_CHUNK = 1 << 20
COMPRESSED = {".gz": lambda raw: gzip.GzipFile(fileobj=raw), ".bz2": bz2.BZ2File}


class CorpusTooLargeError(UserFacingError):
    """The text would pass the corpus limit (limits.py); stops a folder's load too."""

    def __init__(self, path: Path, limit_mb: int) -> None:
        super().__init__(f"{path.name} takes the corpus past its size limit, so loading "
                         f"stopped. {limits.limit_advice(limit_mb)}")


class UnusableFileError(UserFacingError):
    """A file that cannot be used; `reason` is the short form listed for skipped files."""

    def __init__(self, path: Path, reason: str, advice: str) -> None:
        super().__init__(f"{path.name}: {reason}. {advice}")
        self.path, self.reason = path, reason


def _open_stream(path: Path):
    """(raw file, stream of decompressed bytes) for a plain, .gz or .bz2 file; only regular
    files are opened (limits.open_regular)."""
    try:
        raw = limits.open_regular(path)
    except limits.NotRegularFileError as exc:
        if exc.kind == "a folder":
            raise UnusableFileError(path, "is a folder", "Open it with 'Open corpus folder'."
                                    ) from None
        raise UnusableFileError(path, f"is {exc.kind}, not a regular file",
                                "Choose a text file saved on disk.") from None
    except PermissionError:
        raise UnusableFileError(path, "permission denied", "Check the file's permissions "
                          "or copy it somewhere you can read.") from None
    except IsADirectoryError:
        raise UnusableFileError(path, "is a folder", "Open it with 'Open corpus folder'.") from None
    except OSError as exc:
        raise UnusableFileError(path, f"cannot be opened ({exc.strerror or exc})",
                          "Check that the disk is available and the file exists.") from None
    opener = COMPRESSED.get(path.suffix.lower())
    return raw, (opener(raw) if opener else raw)


def read_chunks(path: Path, progress: list[int], total: int, pacer: Pacer,
                 budget: list[int]) -> Generator[Event, None, list[bytes]]:
    """Read a whole file in chunks, yielding Progress by (compressed) bytes read.

    The chunks are kept apart: joining 100 MB into one bytes object is one long call.
    `budget` holds the bytes of text the corpus may still take (decompressed) and the limit
    in MB, checked at every chunk: a small .gz of gigabytes stops at the limit, not when
    memory runs out.
    """
    raw, stream = _open_stream(path)
    chunks, start = [], progress[0]
    try:
        while True:
            try:
                chunk = stream.read(READ_CHUNK)
            except (OSError, EOFError, ValueError) as exc:
                kind = path.suffix.lower().lstrip(".") or "file"
                raise UnusableFileError(path, f"is not a valid {kind} file ({exc})",
                                        "Decompress it yourself or choose another file.") from None
            if not chunk:
                break
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise CorpusTooLargeError(path, budget[1])
            chunks.append(chunk)
            progress[0] = start + raw.tell()
            if pacer.due():
                yield Progress(progress[0], total, f"Reading {path.name}")
    finally:
        stream.close()
        raw.close()
    yield Progress(progress[0], total, f"Reading {path.name}")  # the file's last bytes
    return chunks


def _decode_pieces(chunks: list[bytes], encoding: str, status: Progress,
                   pacer: Pacer | None = None) -> Generator[Event, None, str]:
    """Decode chunk by chunk (incrementally), turning CRLF and CR line ends into LF.

    Yields `status` between chunks: a point where the job can be cancelled. A decoding error
    carries `absolute_start`, its offset in the whole file.
    """
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    pieces, carry, offset = [], "", 0
    pacer = pacer or Pacer()
    for chunk in chunks:
        try:
            piece = carry + decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            exc.absolute_start = offset + max(0, exc.start)
            raise
        offset += len(chunk)
        carry = "\r" if piece.endswith("\r") else ""  # its "\n" may start the next piece
        if carry:
            piece = piece[:-1]
        pieces.append(piece.replace("\r\n", "\n").replace("\r", "\n"))
        if pacer.due():
            yield status
    try:
        pieces.append((carry + decoder.decode(b"", final=True)).replace("\r", "\n"))
    except UnicodeDecodeError as exc:  # the file ends inside a multi-byte character
        exc.absolute_start = offset
        raise
    return pieces[0] if len(pieces) == 1 else "".join(pieces)


def decode_file(path: Path, chunks: list[bytes], chosen: str | None, status: Progress
            ) -> Generator[Event, None, tuple[str, str, str | None]]:
    """(text, codec used, warning or None) for a file's bytes; UnusableFileError if impossible."""
    empty = UnusableFileError(path, "is empty", "Choose a file that contains text.")
    bom = encodings.sniff_bom(chunks[0][:4]) if chunks else None
    encoding = chosen
    if bom is not None and (chosen is None or chosen.replace("-sig", "") == bom[0][:5]
                            or encodings.is_wide(chosen)):
        encoding = bom[0]
        chunks = [chunks[0][bom[1]:], *chunks[1:]]
    elif encoding is not None and chunks:
        encoding = encodings.byte_order(encoding, chunks[0][:encodings.BINARY_SAMPLE])
        if encoding is None:
            raise UnusableFileError(path, f"is not {chosen} text (it has no NUL bytes, which "
                                    "UTF-16 and UTF-32 text is full of)",
                                    "Choose 'auto' or an 8-bit encoding in the Encoding box.")
    if not any(chunks):
        raise empty
    if not encodings.is_wide(encoding):
        reason = encodings.binary_reason(chunks[0])
        if reason:
            raise UnusableFileError(path, f"looks like a binary file, not text: {reason}",
                                    "Choose a plain-text file (.txt, .md); save PDFs or word "
                                    "processor documents as plain text first (UTF-16 text "
                                    "without a byte-order mark: choose utf-16 as encoding).")
    warning = None
    if chosen is not None and encoding.startswith(chosen) and chosen != "utf-8":
        warning = (f"{path.name} was decoded as {encoding}, the encoding chosen in the Encoding "
                   "box (set it back to 'auto' for UTF-8 and detection).")
    try:
        text = yield from _decode_pieces(chunks, encoding or "utf-8", status)
    except UnicodeError as exc:
        if not isinstance(exc, UnicodeDecodeError):  # a codec's own complaint
            raise UnusableFileError(path, f"cannot be decoded as {encoding} ({exc})",
                                    "Choose another encoding in the Encoding box.") from None
        if encoding is not None:
            raise UnusableFileError(
                path, f"is not valid {encoding} (byte {exc.absolute_start} cannot be decoded)",
                "Choose its encoding in the Encoding box and load it again, or 'auto' to "
                "detect it.") from None
        sample = encodings.failure_sample(b"".join(chunks), exc.absolute_start)
        guess = encodings.detect_encoding(sample)
        if guess is None:
            raise UnusableFileError(path, "is not UTF-8 and its encoding could not be detected",
                                    "Choose its encoding in the Encoding box and load it "
                                    "again.") from None
        encoding, coherence = guess
        try:
            text = yield from _decode_pieces(chunks, encoding, status)
        except UnicodeDecodeError:
            raise UnusableFileError(
                path, f"is not UTF-8, and the detected encoding {encoding} does not fit all "
                "of it", "Choose its encoding in the Encoding box.") from None
        warning = (f"{path.name} is not UTF-8; it was decoded as {encoding} (detected, "
                   f"{coherence:.0%} coherent). If letters look wrong, choose the right "
                   "encoding in the Encoding box and load it again.")
    if text.isspace():  # stops at the first visible character, unlike strip()
        raise empty
    return text, encoding or "utf-8", warning
