"""Read the small matrices and vectors a student types: numbers separated by spaces or commas,
rows by new lines or semicolons, brackets optional ("[[1, 2], [3, 4]]" works too)."""

from __future__ import annotations

import re

import numpy as np

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class InputError(ValueError):
    """Typed input that cannot be read; the message names the input and what to type."""


def parse_matrix(text: str, name: str = "matrix") -> np.ndarray:
    """A 2-D array; every row must have the same number of values."""
    cleaned = text.replace("−", "-").replace("],", "];").replace("[", " ").replace("]", " ")
    rows = [r for r in re.split(r"[;\n]", cleaned) if r.strip()]
    if not rows:
        raise InputError(f"{name} is empty. Type numbers, rows on separate lines or split "
                         "by ';', e.g. 1 0; 0 1.")
    parsed = []
    for number, row in enumerate(rows, 1):
        cells = [c for c in re.split(r"[,\s]+", row.strip()) if c]
        bad = [c for c in cells if not _NUMBER.match(c)]
        if bad:
            raise InputError(f"{name}, row {number}: '{bad[0]}' is not a number. Use digits, "
                             "a decimal point and an optional minus sign.")
        parsed.append([float(c) for c in cells])
    widths = {len(r) for r in parsed}
    if len(widths) > 1:
        raise InputError(f"{name}: the rows have different lengths ({sorted(widths)}); every "
                         "row needs the same number of values.")
    return np.array(parsed, dtype=np.float64)


def parse_vector(text: str, name: str = "vector") -> np.ndarray:
    """A 1-D array: one row (or one column) of numbers."""
    values = parse_matrix(text, name)
    if min(values.shape) != 1:
        raise InputError(f"{name} should be one row of numbers, got a {values.shape[0]}×"
                         f"{values.shape[1]} matrix.")
    return values.reshape(-1)


def parse_number(text: str, name: str = "number") -> float:
    values = parse_vector(text, name)
    if len(values) != 1:
        raise InputError(f"{name} should be one number, got {len(values)}.")
    return float(values[0])


def parse_int(text: str, name: str, low: int, high: int) -> int:
    value = parse_number(text, name)
    if value != int(value) or not low <= value <= high:
        raise InputError(f"{name} should be a whole number from {low} to {high}, got {text!r}.")
    return int(value)
