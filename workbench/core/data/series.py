"""The numbers a forecaster learns from (config/forecast.py): a generated series or a column of
a CSV file, cut in time into training, validation and test parts, standardised by the training
part's mean and spread (which the model's vocabulary records, to read its forecasts in the
series' own units)."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError

MIN_POINTS = 40  # fewer and no part of the cut has enough to read a window and predict


@dataclass
class SeriesData:
    name: str
    train: np.ndarray  # standardised, float32
    val: np.ndarray
    test: np.ndarray
    mean: float
    std: float

    def vocabulary(self) -> dict:
        """What a checkpoint keeps to read the model's numbers back in the series' units."""
        return {"kind": "series", "name": self.name, "mean": self.mean, "std": self.std}


def generated_series(kind: str, length: int, period: int, noise: float,
                     seed: int) -> np.ndarray:
    """A sine of `period` points, or a seasonal series: a slow trend, a wave of `period` points
    and one four times faster at half the height; Gaussian noise of std `noise` on either."""
    t = np.arange(length, dtype=np.float64)
    wave = np.sin(2 * math.pi * t / period)
    if kind == "seasonal":
        wave = wave + 0.5 * np.sin(2 * math.pi * t * 4 / period) + 1.5 * t / length
    return wave + np.random.default_rng(seed).normal(0.0, noise, length)


def read_series(path: str | Path, column: str) -> tuple[np.ndarray, str]:
    """A column of a CSV file with a header row: by its header, else by its number (0 first,
    -1 last); a cell that is not a number is named by its line."""
    try:
        text = bounded.read_text(path, "task data")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFacingError(f"{path} cannot be read as a CSV file of numbers ({exc}).") from None
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 2:
        raise UserFacingError(f"{path} needs a header row and at least {MIN_POINTS} values.")
    header = [cell.strip() for cell in rows[0]]
    if column in header:
        index = header.index(column)
    else:
        try:
            index = int(column)
            header[index]
        except (ValueError, IndexError):
            raise UserFacingError(f"{path} has no column '{column}' (its header: "
                                  f"{', '.join(header)}).") from None
    values = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            value = float(row[index])
        except (ValueError, IndexError):
            cell = row[index] if index < len(row) else "nothing"
            raise UserFacingError(f"{path}, line {line}: '{cell}' in column "
                                  f"'{header[index]}' is not a number.") from None
        if not math.isfinite(value):
            raise UserFacingError(f"{path}, line {line}: {value} is not a finite number.")
        values.append(value)
    return np.asarray(values, dtype=np.float64), f"{Path(path).name}: {header[index]}"


def prepare_series(config, seed: int) -> SeriesData:
    """The task's series, cut in time and standardised by its training part."""
    if config.data == "file":
        values, name = read_series(config.path, config.column)
    else:
        values = generated_series(config.data, config.length, config.period, config.noise, seed)
        name = f"{config.data} series, period {config.period}, noise {config.noise:g}"
    if len(values) < MIN_POINTS:
        raise UserFacingError(f"The series has {len(values)} values: at least {MIN_POINTS} are "
                              "needed to train, validate and test.")
    val_at = int(len(values) * (1 - config.val_fraction - config.test_fraction))
    test_at = int(len(values) * (1 - config.test_fraction))
    train = values[:val_at]
    mean, std = float(train.mean()), float(train.std())
    std = std if std > 1e-12 else 1.0  # a constant series: its values are all 0 standardised
    scaled = ((values - mean) / std).astype(np.float32)
    return SeriesData(name, scaled[:val_at], scaled[val_at:test_at], scaled[test_at:], mean, std)
