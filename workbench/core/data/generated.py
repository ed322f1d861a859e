"""Built-in sequence-to-sequence tasks that need no download, generated from a seed.

Each generator takes (size, length, rng) and returns `size` (source, target) string pairs:

- dates:     a date written in one of many human formats -> ISO 8601, "3 March 2011" ->
             "2011-03-03". `length` is the difficulty: 1 numeric formats, 2 adds month names,
             3 adds weekdays, ordinals, abbreviations, capitals and two-digit years.
- reverse:   a string of 1..length letters -> the same letters backwards.
- sort:      a string of 1..length digits -> its digits in ascending order.
- addition:  "a+b" with 1..length digits each -> their sum, "123+45" -> "168".
- copy:      a string of 1..length letters -> itself.

Numeric dates are day first (03/04/11 is 3 April 2011) and two-digit years fall in 1950-2049;
one fixed convention, or the task would have no single answer. Dates are drawn from
1950-01-01..2049-12-31. The same (name, size, length, seed) always gives the same pairs.
"""

from __future__ import annotations

import datetime
import string
from collections.abc import Callable

import numpy as np

FIRST_DAY = datetime.date(1950, 1, 1).toordinal()
LAST_DAY = datetime.date(2049, 12, 31).toordinal()
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
LETTERS = string.ascii_lowercase


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


# (difficulty it appears from, formatter); a formatter gets the date and a random choice
# function, so one format can vary its separators and case
DateFormat = Callable[[datetime.date, Callable[[tuple], str]], str]
DATE_FORMATS: tuple[tuple[int, DateFormat], ...] = (
    (1, lambda d, pick: f"{d.day:02d}{(s := pick(('/', '-', '.')))}{d.month:02d}{s}{d.year}"),
    (1, lambda d, pick: f"{d.day}/{d.month}/{d.year}"),
    (1, lambda d, pick: f"{d.year}/{d.month:02d}/{d.day:02d}"),
    (2, lambda d, pick: f"{d.day} {MONTHS[d.month - 1]} {d.year}"),
    (2, lambda d, pick: f"{MONTHS[d.month - 1]} {d.day}, {d.year}"),
    (2, lambda d, pick: f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}"),
    (2, lambda d, pick: f"{MONTHS[d.month - 1][:3]} {d.day} {d.year}"),
    (3, lambda d, pick: f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {_ordinal(d.day)} "
                        f"{d.year}"),
    (3, lambda d, pick: f"{WEEKDAYS[d.weekday()][:3]} {d.day} {MONTHS[d.month - 1][:3]} "
                        f"{d.year}"),
    (3, lambda d, pick: f"the {_ordinal(d.day)} of {MONTHS[d.month - 1]}, {d.year}"),
    (3, lambda d, pick: f"{d.day:02d}/{d.month:02d}/{d.year % 100:02d}"),
    (3, lambda d, pick: f"{d.day} {MONTHS[d.month - 1][:3].lower()} {d.year % 100:02d}"),
    (3, lambda d, pick: f"{MONTHS[d.month - 1].upper()} {d.day}, {d.year}"),
    (3, lambda d, pick: f"{WEEKDAYS[d.weekday()].lower()} {d.day} {MONTHS[d.month - 1].lower()}"
                        f" {d.year}"),
)


def dates(size: int, difficulty: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    formats = [f for level, f in DATE_FORMATS if level <= difficulty]
    days = rng.integers(FIRST_DAY, LAST_DAY + 1, size=size)
    which = rng.integers(0, len(formats), size=size)
    pairs = []
    for day, index in zip(days.tolist(), which.tolist(), strict=True):
        date = datetime.date.fromordinal(day)
        source = formats[index](date, lambda options: options[int(rng.integers(len(options)))])
        pairs.append((source, date.isoformat()))
    return pairs


def _strings(size: int, length: int, alphabet: str, rng: np.random.Generator) -> list[str]:
    lengths = rng.integers(1, length + 1, size=size)
    symbols = np.array(list(alphabet))
    return ["".join(symbols[rng.integers(0, len(alphabet), size=n)]) for n in lengths.tolist()]


def reverse(size: int, length: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    return [(s, s[::-1]) for s in _strings(size, length, LETTERS, rng)]


def sort_digits(size: int, length: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    return [(s, "".join(sorted(s))) for s in _strings(size, length, string.digits, rng)]


def copy(size: int, length: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    return [(s, s) for s in _strings(size, length, LETTERS, rng)]


def addition(size: int, length: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    def numbers() -> np.ndarray:
        digits = rng.integers(1, length + 1, size=size)
        return (rng.random(size) * 10.0 ** digits).astype(np.int64)

    return [(f"{a}+{b}", str(a + b)) for a, b in zip(numbers().tolist(), numbers().tolist(),
                                                     strict=True)]


# name -> (generator, what makes two examples "the same" for holding out: the date for dates,
# so a held-out date is never trained on in any format; the source for the others)
GENERATORS: dict[str, tuple[Callable, Callable[[tuple[str, str]], str]]] = {
    "dates": (dates, lambda pair: pair[1]),
    "reverse": (reverse, lambda pair: pair[0]),
    "sort": (sort_digits, lambda pair: pair[0]),
    "addition": (addition, lambda pair: pair[0]),
    "copy": (copy, lambda pair: pair[0]),
}


def generate(name: str, size: int, length: int, seed: int) -> list[tuple[str, str]]:
    """`size` pairs of the generated task `name` (see the module docstring)."""
    generator, _ = GENERATORS[name]
    rng = np.random.default_rng([seed] + [ord(c) for c in name])  # each task its own stream
    return generator(size, length, rng)


def held_out_split(name: str, pairs: list[tuple[str, str]], held_out: int, seed: int
                   ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(training pairs, held-out pairs): `held_out` examples whose key (see GENERATORS) no
    training pair shares, so validation measures generalisation, not recall."""
    key = GENERATORS[name][1] if name in GENERATORS else (lambda pair: pair[0])
    order = np.random.default_rng([seed, 17]).permutation(len(pairs))
    kept, keys = [], set()
    for index in order.tolist():
        pair_key = key(pairs[index])
        if len(kept) < held_out and pair_key not in keys:
            kept.append(pairs[index])
            keys.add(pair_key)
        elif len(kept) >= held_out:
            break
    train = [pair for pair in pairs if key(pair) not in keys]
    return train, kept
