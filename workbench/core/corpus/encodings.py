"""Decide how the bytes of a file become text: byte-order marks, binary sniffing, detection.

Order of decisions for a file:
1. a byte-order mark (UTF-8, UTF-16, UTF-32) wins and is removed;
2. a user-chosen encoding is used as is (decoding errors are reported, never replaced);
3. otherwise UTF-8 is tried; if the bytes are not UTF-8, charset-normalizer guesses the
   encoding from a sample, and the caller turns that guess into a visible warning.
A file with NUL bytes or many control characters (and no UTF-16/32 mark) is treated as binary.
"""

from __future__ import annotations

import codecs

AUTO = "auto"
# What the panel's encoding box offers; any other Python codec name works from code.
ENCODING_CHOICES = (AUTO, "utf-8", "utf-16", "latin-1", "cp1252", "iso-8859-15", "mac-roman",
                    "cp1251", "koi8-r", "shift_jis", "euc-jp", "gb18030", "big5", "euc-kr")

_BOMS = (  # longest first: the UTF-32-LE mark begins with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_WIDE = ("utf-16", "utf-32")
BINARY_SAMPLE = 64 * 1024
CONTROL_RATIO_LIMIT = 0.10
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b")
_CONTROL_TABLE = bytes(range(32)) + b"\x7f"


def sniff_bom(head: bytes) -> tuple[str, int] | None:
    """(encoding, length of the mark) when `head` starts with a byte-order mark."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, len(bom)
    return None


def normalize_encoding(name: str | None) -> str | None:
    """A canonical codec name, None for automatic; ValueError naming the bad choice."""
    if name is None or name.strip().lower() in ("", AUTO):
        return None
    try:
        codec = codecs.lookup(name.strip()).name
    except LookupError:
        raise ValueError(
            f"Unknown encoding '{name}'. Choose one from the list (for example utf-8, "
            "latin-1 or cp1252) or 'auto' to detect it."
        ) from None
    try:  # bytes.decode takes text encodings only: base64, rot13, zlib, uu, hex, bz2 are not
        b"a".decode(codec)  # (empty bytes skip the check)
    except LookupError:
        raise ValueError(
            f"'{name}' is not a text encoding: it transforms data (as base64, zlib, uu, hex "
            "and rot13 do) rather than turning bytes into characters. Choose a text encoding "
            "such as utf-8, latin-1 or cp1252, or 'auto' to detect it."
        ) from None
    except (UnicodeError, ValueError):
        pass  # a text encoding that cannot decode this one byte (utf-16, idna)
    return codec


def is_wide(encoding: str | None) -> bool:
    """UTF-16 and UTF-32 text is full of NUL bytes, so the binary test must not apply."""
    return bool(encoding) and encoding.replace("_", "-").startswith(_WIDE)


def byte_order(encoding: str, sample: bytes) -> str | None:
    """UTF-16 or UTF-32 chosen without a byte order, for text without a byte-order mark:
    the order the text's NUL bytes show (ASCII letters are 'h\\0' little-endian, '\\0h'
    big-endian). Python's own 'utf-16' refuses such text. None: no NUL bytes at all, so the
    text is not UTF-16/32 (8-bit text read as UTF-16 becomes CJK-looking nonsense)."""
    if encoding not in ("utf-16", "utf-32"):
        return encoding
    width = 2 if encoding == "utf-16" else 4
    usable = sample[: len(sample) - len(sample) % width]
    first = usable[0::width].count(0)  # high bytes first: big-endian text has NULs here
    last = usable[width - 1::width].count(0)
    if first == last == 0:
        return None
    return f"{encoding}-{'be' if first > last else 'le'}"


def binary_reason(sample: bytes) -> str | None:
    """Why a sample looks like binary data, or None if it may be text."""
    sample = sample[:BINARY_SAMPLE]
    if not sample:
        return None
    if b"\x00" in sample:
        return "it contains NUL bytes"
    controls = len(sample) - len(sample.translate(None, _CONTROL_TABLE))
    controls -= sum(sample.count(bytes([c])) for c in _TEXT_CONTROLS)
    if controls / len(sample) > CONTROL_RATIO_LIMIT:
        return f"{controls / len(sample):.0%} of its first bytes are control characters"
    return None


# Single-byte code pages often decode a sample equally well (a French latin-1 text reads as
# cp1257 with no visible "chaos"); among near-ties the common Western ones are the likely truth.
PREFERRED_ON_TIE = ("cp1252", "latin-1", "iso8859-15")
TIE_CHAOS_MARGIN = 0.1


def detect_encoding(sample: bytes) -> tuple[str, float] | None:
    """A guess (codec name, coherence 0..1) for a non-UTF-8 sample, from charset-normalizer."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(sample))
    if not matches:
        return None
    best = min(matches, key=lambda m: m.chaos)
    near = {codecs.lookup(m.encoding).name: m for m in matches
            if m.chaos <= best.chaos + TIE_CHAOS_MARGIN}
    for name in PREFERRED_ON_TIE:
        chosen = near.get(codecs.lookup(name).name)
        if chosen is not None:
            return codecs.lookup(chosen.encoding).name, float(chosen.coherence)
    return codecs.lookup(best.encoding).name, float(best.coherence)


def failure_sample(data: bytes, position: int, width: int = 128 * 1024) -> bytes:
    """The file's head plus the bytes around the first decoding failure, for detection.

    The head alone is often pure ASCII in a large file whose first accented letter comes
    later; the window around the failure holds the bytes that decide the encoding.
    """
    head = data[:width]
    if position < width:
        return head
    start = max(width, position - width // 2)
    return head + b"\n" + data[start:start + width]
