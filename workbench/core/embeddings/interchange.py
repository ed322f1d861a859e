"""Import and export word vectors in the usual formats.

Import: word2vec text ("N d" header), fastText .vec (the same layout), GloVe text (no header),
word2vec binary, and gensim's native KeyedVectors files. Export: word2vec text and binary, and
the TensorBoard Projector pair (vectors.tsv + metadata.tsv).

Text and binary files are parsed here, line by line, so a malformed file gets an error that
names the line (or entry) and what is wrong; nothing half-read is returned. Fields may be
separated by spaces or tabs (GloVe files come both ways); every value must be finite; a word
listed twice keeps its first vector and the repeat is noted.

gensim's native format is a Python pickle: opening one runs whatever code it holds. It is
refused (`CodeInFileError`, which points to the safe formats) unless the caller passes
`trust_code=True`, which the window does only after the user confirmed, in a dialog whose
default is to refuse, that the file comes from someone they trust. The CLI and recipes never
load vectors from a pickle.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np

from workbench.core.embeddings.vectors import WordVectors
from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError

FORMATS = ("word2vec-text", "glove", "fasttext-vec", "word2vec-binary", "gensim")
_FIELD_SEPARATOR = re.compile(r"[ \t]+")


class CodeInFileError(UserFacingError):
    """A file that can run code when opened (a pickle), refused until the user trusts it."""


def _fail(path: Path, where: str, what: str) -> UserFacingError:
    return UserFacingError(f"{path.name}, {where}: {what}. Nothing was loaded.")


def load_vectors(path: str | Path, fmt: str, trust_code: bool = False) -> WordVectors:
    """Read word vectors; `trust_code` only after the user said the file may run code."""
    path = Path(path)
    if not path.exists():
        raise UserFacingError(f"{path} does not exist. Choose the vectors file again.")
    try:
        bounded.check_regular(path)
    except OSError as exc:
        raise UserFacingError(f"{exc}. Choose a vectors file.") from None
    if fmt in ("word2vec-text", "fasttext-vec"):
        vectors = _load_text(path, header=True)
    elif fmt == "glove":
        vectors = _load_text(path, header=False)
    elif fmt == "word2vec-binary":
        vectors = _load_binary(path)
    elif fmt == "gensim":
        vectors = _load_gensim(path, trust_code)
    else:
        raise UserFacingError(f"Unknown vector format '{fmt}'. Known: {', '.join(FORMATS)}.")
    return _without_repeats(path, vectors)


def _without_repeats(path: Path, vectors: WordVectors) -> WordVectors:
    """Keep the first vector of a word listed twice (large GloVe files have a few), noting it;
    a repeat would make the vocabulary disagree with the matrix further on."""
    first: dict[str, int] = {}
    repeats = [i for i, word in enumerate(vectors.words) if first.setdefault(word, i) != i]
    if not repeats:
        return vectors
    keep = np.ones(len(vectors.words), dtype=bool)
    keep[repeats] = False
    example = vectors.words[repeats[0]]
    counts = vectors.counts[keep] if vectors.counts is not None else None
    kept = WordVectors([w for w, k in zip(vectors.words, keep, strict=True) if k],
                       vectors.vectors[keep], counts, source=vectors.source,
                       notes=list(vectors.notes), subwords=vectors.subwords)
    kept.notes.append(f"{len(repeats)} repeated words in {path.name} (such as '{example}'): "
                      "the first vector of each was kept")
    return kept


def _load_text(path: Path, header: bool) -> WordVectors:
    words, rows, expected, size = [], [], None, None
    raw = _open_bounded(path)
    with io.TextIOWrapper(raw, encoding="utf-8", errors="strict") as handle:
        try:
            for number, line in enumerate(handle, start=1):
                parts = _FIELD_SEPARATOR.split(line.strip(" \t\r\n"))
                if header and number == 1:
                    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
                        raise _fail(path, "line 1", "the header should be 'count dimensions' "
                                    f"(got '{line.strip()[:60]}'); for GloVe files without a "
                                    "header choose the GloVe format")
                    expected, size = int(parts[0]), int(parts[1])
                    if expected == 0 or size == 0:
                        raise _fail(path, "line 1", f"the header promises {expected} words of "
                                    f"{size} dimensions: a file of vectors needs both above 0")
                    continue
                if not line.strip():
                    continue
                if size is None:
                    size = len(parts) - 1
                    if size == 0:
                        raise _fail(path, f"line {number}", "a word with no numbers after it: "
                                    "fields must be separated by spaces or tabs")
                if len(parts) - 1 != size:
                    raise _fail(path, f"line {number}", f"{len(parts) - 1} numbers where the "
                                f"vectors have {size} dimensions")
                try:
                    rows.append(np.array(parts[1:], dtype=np.float32))
                except ValueError:
                    bad = next(p for p in parts[1:] if not _is_number(p))
                    raise _fail(path, f"line {number}", f"'{bad}' is not a number") from None
                if not np.isfinite(rows[-1]).all():  # float() reads 'nan' and 'inf'
                    bad = parts[1 + int(np.argmin(np.isfinite(rows[-1])))]
                    raise _fail(path, f"line {number}", f"'{bad}' is not a finite number")
                words.append(parts[0])
        except UnicodeDecodeError as exc:
            raise UserFacingError(f"{path.name} is not UTF-8 text ({exc.reason}). Is it a "
                                  "binary word2vec file? Choose that format.") from None
    if expected is not None and expected != len(words):
        raise _fail(path, "header", f"it promises {expected} words but the file has "
                    f"{len(words)} (truncated?)")
    if not words:
        raise _fail(path, "the whole file", "no vectors found")
    return WordVectors(words, np.stack(rows), source=path.name)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _open_bounded(path: Path):
    """The file opened for reading, if it is a regular file that fits in memory."""
    try:
        raw = bounded.open_regular(path)
        size, limit = os.fstat(raw.fileno()).st_size, bounded.limit_of("vectors")
        if size > limit:
            raw.close()
            raise bounded.FileTooLargeError(path, size, limit, "vectors file")
    except OSError as exc:
        raise UserFacingError(f"{path.name} cannot be read: {exc.strerror or exc}. Nothing "
                              "was loaded.") from None
    return raw


def _load_binary(path: Path) -> WordVectors:
    try:
        data = bounded.read_bytes(path, "vectors")
    except OSError as exc:
        raise UserFacingError(f"{path.name} cannot be read: {exc.strerror or exc}. Nothing "
                              "was loaded.") from None
    end = data.find(b"\n")
    header = data[:end].split() if end >= 0 else []
    if len(header) != 2 or not all(x.isdigit() for x in header):  # bytes: ASCII digits only
        raise _fail(path, "header", "a binary word2vec file starts with 'count dimensions' "
                    "(two whole numbers) on its first line")
    count, size = (int(x) for x in header)
    # Each entry is at least a one-byte word, a space and 4 bytes per dimension: a header
    # promising more than the file can hold is refused before the matrix is allocated.
    room = len(data) - (end + 1)
    if count == 0 or size == 0 or count * (2 + 4 * size) > room:
        raise _fail(path, "header", f"it promises {count:,} words of {size:,} dimensions, "
                    f"which {room:,} bytes of vectors cannot hold (a damaged or truncated "
                    "file, or not a binary word2vec file)")
    words, matrix, offset = [], np.empty((count, size), dtype=np.float32), end + 1
    width = 4 * size
    for entry in range(count):
        space = data.find(b" ", offset)
        if space < 0 or space + 1 + width > len(data):
            raise _fail(path, f"entry {entry + 1} of {count}", "the file ends early (truncated)")
        try:
            words.append(data[offset:space].decode("utf-8").strip("\n"))
        except UnicodeDecodeError:
            raise _fail(path, f"entry {entry + 1}", "the word is not UTF-8") from None
        matrix[entry] = np.frombuffer(data, dtype="<f4", count=size, offset=space + 1)
        offset = space + 1 + width
        if offset < len(data) and data[offset:offset + 1] == b"\n":
            offset += 1
    if not np.all(np.isfinite(matrix)):
        raise _fail(path, "vectors", "some values are not finite numbers")
    return WordVectors(words, matrix, source=path.name)


def _load_gensim(path: Path, trust_code: bool) -> WordVectors:
    if not trust_code:
        raise CodeInFileError(
            f"{path.name} was not opened: gensim's native format is a Python pickle, and "
            "opening a pickle runs whatever code it holds, with your permissions. Import the "
            "same vectors in a safe format instead: in gensim, "
            "model.wv.save_word2vec_format('vectors.txt') (word2vec text) or with "
            "binary=True (word2vec binary). Open the gensim file only if you made it yourself "
            "or fully trust where it came from.")
    from gensim.models import KeyedVectors

    try:
        wv = KeyedVectors.load(str(path))
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means the same to a user
        raise UserFacingError(f"{path.name} is not a gensim KeyedVectors file "
                              f"({type(exc).__name__}). Nothing was loaded.") from None
    wv = getattr(wv, "wv", wv)  # a whole saved Word2Vec/FastText model holds its vectors
    try:
        words = [str(w) for w in wv.index_to_key]
        matrix = np.array(wv.vectors, dtype=np.float32)  # a copy, never a memory map
        counts = getattr(wv, "expandos", {}).get("count")
    except (AttributeError, TypeError, ValueError):
        raise UserFacingError(f"{path.name} holds no word vectors gensim can read. Nothing "
                              "was loaded.") from None
    if matrix.ndim != 2 or matrix.shape[0] != len(words) or not words:
        raise _fail(path, "vectors", f"{len(words)} words but a matrix of shape "
                    f"{matrix.shape}")
    if not np.isfinite(matrix).all():
        row = int(np.argmin(np.isfinite(matrix).all(axis=1)))
        raise _fail(path, f"the vector of '{words[row]}'", "some values are not finite "
                    "numbers (NaN or infinity)")
    counts = np.asarray(counts, dtype=np.int64).copy() if counts is not None else None
    if counts is not None and not counts.any():  # gensim fills 0 when it never counted
        counts = None
    return WordVectors(words, matrix, counts, source=path.name)


def save_vectors(vectors: WordVectors, path: str | Path, fmt: str) -> list[Path]:
    """Write vectors; returns the files written (two for the TensorBoard pair)."""
    path = Path(path)
    if fmt == "word2vec-text":
        with path.open("w", encoding="utf-8") as handle:
            handle.write(f"{len(vectors)} {vectors.size}\n")
            for word, row in zip(vectors.words, vectors.vectors, strict=True):
                handle.write(word + " " + " ".join(f"{v:.6g}" for v in row) + "\n")
        return [path]
    if fmt == "word2vec-binary":
        with path.open("wb") as handle:
            handle.write(f"{len(vectors)} {vectors.size}\n".encode())
            for word, row in zip(vectors.words, vectors.vectors, strict=True):
                handle.write(word.encode("utf-8") + b" " + row.astype("<f4").tobytes() + b"\n")
        return [path]
    if fmt == "tensorboard":
        vectors_file = path.with_name(path.stem + "_vectors.tsv")
        metadata_file = path.with_name(path.stem + "_metadata.tsv")
        np.savetxt(vectors_file, vectors.vectors, delimiter="\t", fmt="%.6g")
        metadata_file.write_text("\n".join(vectors.words) + "\n", encoding="utf-8")
        return [vectors_file, metadata_file]
    raise UserFacingError(f"Cannot export to '{fmt}'.")
