"""Reading a safetensors file tensor by tensor, straight into float32 arrays.

Loading the whole file as bytes and handing it to the library held the weights twice (the
bytes and the tensors made from them), then a third time as float32 numpy. Here the header is
read first (names, dtypes, shapes and byte ranges, every one checked against the file's size),
then each tensor the caller wants is read from its own range into its own array, with a
cancel check between tensors: the weights are held once, plus one tensor being widened. The
format: 8 bytes of header length (little-endian), the JSON header, then the data.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.files.bounded import open_regular

HEADER_LIMIT = 100 * 2**20  # names and shapes: kilobytes, never this
DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "F64": np.float64}


class DamagedFileError(ValueError):
    """The file is not a safetensors file, or its header does not fit its data."""


def read_header(file: Path) -> tuple[dict[str, Any], int]:
    """(name -> {dtype, shape, data_offsets}, where the data starts), checked."""
    with open_regular(file) as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            (length,) = struct.unpack("<Q", handle.read(8))
        except struct.error:
            raise DamagedFileError("it is shorter than a header") from None
        if length > min(HEADER_LIMIT, size - 8):
            raise DamagedFileError("its header length is larger than the file")
        try:
            header = json.loads(handle.read(length))
        except (ValueError, UnicodeDecodeError) as exc:
            raise DamagedFileError(f"its header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise DamagedFileError("its header is not a table")
    header.pop("__metadata__", None)
    start = 8 + length
    for name, entry in header.items():
        try:
            begin, end = (int(x) for x in entry["data_offsets"])
            count = int(np.prod([int(n) for n in entry["shape"]], dtype=np.int64))
            width = np.dtype(DTYPES.get(entry["dtype"], np.uint8)).itemsize
        except (KeyError, TypeError, ValueError):
            raise DamagedFileError(f"its entry for {name} is not a tensor's") from None
        if not 0 <= begin <= end <= size - start:
            raise DamagedFileError(f"{name} lies past the end of the file (cut short?)")
        if entry["dtype"] in DTYPES and end - begin != count * width:
            raise DamagedFileError(f"{name}'s bytes do not match its shape")
    return header, start


def read_tensors(file: Path, wanted: Callable[[str], bool],
                 check: Callable[[], object] | None = None) -> dict[str, np.ndarray]:
    """The tensors `wanted` names, as float32 arrays of their shapes."""
    header, start = read_header(file)
    out = {}
    with open_regular(file) as handle:
        for name, entry in header.items():
            if not wanted(name):
                continue
            if entry["dtype"] not in DTYPES:
                raise DamagedFileError(f"{name} is stored as {entry['dtype']}, not floating point")
            if check is not None:
                check()
            begin, end = (int(x) for x in entry["data_offsets"])
            raw = np.empty((end - begin) // np.dtype(DTYPES[entry["dtype"]]).itemsize,
                           DTYPES[entry["dtype"]])
            handle.seek(start + begin)
            if handle.readinto(memoryview(raw).cast("B")) != end - begin:
                raise DamagedFileError(f"{name} is cut short")
            out[name] = _widened(raw, entry["dtype"]).reshape([int(n) for n in entry["shape"]])
    return out


def _widened(raw: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "F32":
        return raw
    if dtype == "BF16":  # the top half of a float32: shift the 16 bits into place
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float32)
