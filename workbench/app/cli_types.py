"""Argument types for the command lines: a bad value is argparse's one-line usage error
(exit status 2), not a value that passes every range check (nan fails every comparison, so
`--temperature nan` and `--zoom nan` were accepted)."""

from __future__ import annotations

import argparse
import math


def finite_float(text: str) -> float:
    """A float that is a number: 'nan', 'inf' and '-inf' are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value
