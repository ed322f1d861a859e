"""What a worked computation is: lines of (what, formula, numbers substituted, result), and
the formatting of numbers and vectors they share.

Formulas use the equation cards' symbols in plain Unicode (q_i · k_j, σ, ⊙, √d_k), so the
same record reads in the Qt room, a test or a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

SHOWN = 6  # values of a vector written out before "…"
TERMS = 3  # terms of a sum written out before "…"


@dataclass(frozen=True)
class Line:
    label: str  # in words: "score", "weight after softmax"
    formula: str  # in the card's symbols: "q_i · k_j"
    working: str  # the numbers put in: "0.12×0.40 + (−0.31)×0.07 + … (32 terms)"
    value: Any  # float or numpy array: what the line computes


@dataclass(frozen=True)
class Curve:
    label: str
    x: np.ndarray
    y: np.ndarray
    dashed: bool = False  # a derivative beside its function, drawn in the same colour
    colour_of: str = ""  # the label of the curve whose colour it shares ("" = its own)
    group: str = ""  # curves of one group share a small plot titled by it ("" = the main one)
    bars: bool = False  # drawn as bars at x (bar series side by side), not as a line


@dataclass(frozen=True)
class Figure:
    """A figure drawn beside a computation (the course's figures, from the same numbers)."""

    title: str
    x_label: str
    y_label: str
    curves: tuple[Curve, ...]


@dataclass(frozen=True)
class WorkedComputation:
    title: str
    lines: tuple[Line, ...]
    source: str = ""  # where the equations come from (a public reference)
    values: dict[str, Any] = field(default_factory=dict)  # named results, for tests and checks
    note: str = ""  # e.g. which convention, or how the result compares with a printed one
    figure: Figure | None = None


def _whole(values) -> bool:
    """True when every finite value is a whole number (typed integers print without decimals)."""
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    return bool(len(finite)) and bool(np.all(finite == np.round(finite))) and \
        bool(np.all(np.abs(finite) < 1e9))


def num(x: float, digits: int = 4) -> str:
    """A number as the card shows it: fixed decimals (none for a whole number), a real minus
    sign, ∞ for infinities."""
    x = float(x)
    if _whole(x):
        digits = 0
    if np.isinf(x):
        return "−∞" if x < 0 else "∞"
    if np.isnan(x):
        return "NaN"
    text = f"{x:.{digits}f}"
    if float(text) == 0.0:
        text = f"{0.0:.{digits}f}"
    return text.replace("-", "−")


def vec(v, digits: int = 4, shown: int = SHOWN) -> str:
    """[a, b, c, …, z] (n values): the first few values and the last, and the length."""
    v = np.asarray(v, dtype=np.float64).reshape(-1)
    digits = 0 if _whole(v) else digits
    if len(v) <= shown + 1:
        return "[" + ", ".join(num(x, digits) for x in v) + "]"
    head = ", ".join(num(x, digits) for x in v[:shown])
    return f"[{head}, …, {num(v[-1], digits)}] ({len(v)} values)"


def matrix(m, digits: int = 4) -> str:
    """A small matrix, one row per line."""
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    return "\n".join(vec(row, digits, shown=12) for row in m)


def products(a, b, digits: int = 4, terms: int = TERMS) -> str:
    """The sum Σ a_d·b_d written out: "a₁×b₁ + a₂×b₂ + … (n terms)"."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    parts = [f"{_paren(num(x, digits))}×{_paren(num(y, digits))}"
             for x, y in zip(a[:terms], b[:terms], strict=False)]
    text = " + ".join(parts)
    return text + (f" + … ({len(a)} terms)" if len(a) > terms else "")


def _paren(text: str) -> str:
    return f"({text})" if text.startswith("−") else text


def plus(*values: float, digits: int = 4) -> str:
    """a + (−b) + c: a sum written out, negative terms after the first in brackets."""
    texts = [num(v, digits) for v in values]
    return " + ".join(texts[:1] + [_paren(t) for t in texts[1:]])


def times(a: float, b: float, digits: int = 4) -> str:
    """a×b with a negative second factor in brackets."""
    return f"{_paren(num(a, digits))}×{_paren(num(b, digits))}"


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def softmax(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x)
    out = np.zeros_like(x)
    if finite.any():
        e = np.exp(x[finite] - x[finite].max())
        out[finite] = e / e.sum()
    return out
