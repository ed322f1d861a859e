"""The curves of one run as growable numpy columns, fed by training events (no Qt here).

Live events and events read back from a run folder go through the same `add`, so a run looks
the same whether it was watched or opened later. A `DivergenceHandled` event drops the points
past the step training rolled back to (they are trained again) and keeps a marker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.signal import lfilter

from workbench.core.events import DivergenceHandled, EvalLogged, Event, SampleGenerated, StepLogged

X_AXES = {"step": "Step", "tokens": "Tokens seen", "time": "Wall time (s)"}
TRAIN_COLUMNS = ("step", "tokens", "time", "loss", "lr", "grad_norm", "tok_s", "clip_rate")
VAL_COLUMNS = ("step", "tokens", "time", "val_loss", "perplexity", "bits")


class Columns:
    """Named float64 columns that grow by doubling (appending is O(1), views are free)."""

    def __init__(self, names: tuple[str, ...], capacity: int = 1024) -> None:
        self.names = names
        self._data = np.empty((len(names), capacity))
        self.size = 0

    def append(self, *values: float) -> None:
        if self.size == self._data.shape[1]:
            grown = np.empty((len(self.names), 2 * self.size))
            grown[:, : self.size] = self._data
            self._data = grown
        self._data[:, self.size] = values
        self.size += 1

    def extend(self, block: np.ndarray) -> None:
        """Append rows of a (len(names), n) block at once (for synthetic long series)."""
        for row in block.T:
            self.append(*row)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._data[self.names.index(name), : self.size]

    def truncate_after(self, step: float) -> None:
        steps = self["step"]
        self.size = int(np.searchsorted(steps, step, side="right")) if self.size else 0


@dataclass
class Divergence:
    step: int
    tokens: float
    time: float
    reason: str


@dataclass
class RunSeries:
    key: str  # run folder (or a temporary key while it starts)
    name: str
    colour: str
    visible: bool = True
    live: bool = False
    train: Columns = field(default_factory=lambda: Columns(TRAIN_COLUMNS))
    val: Columns = field(default_factory=lambda: Columns(VAL_COLUMNS))
    divergences: list[Divergence] = field(default_factory=list)
    samples: list[SampleGenerated] = field(default_factory=list)
    version: int = 0  # bumped at each change, so views redraw only what changed

    def add(self, event: Event) -> None:
        if isinstance(event, StepLogged):
            self.train.append(event.step, event.tokens_seen, event.elapsed_s, event.loss,
                              event.lr, event.grad_norm, event.tokens_per_s, event.clip_rate)
        elif isinstance(event, EvalLogged):
            self.val.append(event.step, event.tokens_seen, event.elapsed_s, event.val_loss,
                            event.perplexity, event.bits_per_token)
        elif isinstance(event, DivergenceHandled):
            tokens = self.train["tokens"][-1] if self.train.size else 0.0
            time = self.train["time"][-1] if self.train.size else 0.0
            self.divergences.append(Divergence(event.step, tokens, time, event.reason))
            self.train.truncate_after(event.resumed_at)
            self.val.truncate_after(event.resumed_at)
        elif isinstance(event, SampleGenerated):
            self.samples.append(event)
        else:
            return
        self.version += 1


def ema(values: np.ndarray, smoothing: float) -> np.ndarray:
    """Exponential moving average y_t = s·y_{t-1} + (1-s)·x_t, started at x_0 (s in [0, 1))."""
    if smoothing <= 0 or len(values) < 2:
        return values
    return lfilter([1.0 - smoothing], [1.0, -smoothing], values,
                   zi=[smoothing * values[0]])[0]


def train_metric(series: RunSeries, metric: str) -> np.ndarray:
    """A training column for a plot: loss-derived metrics come from the training loss."""
    loss = series.train["loss"]
    if metric == "perplexity":
        return np.exp(np.minimum(loss, 700.0))
    if metric == "bits":
        return loss / math.log(2.0)
    return series.train[metric]


def peak_decimate(x: np.ndarray, y: np.ndarray, buckets: int = 1024
                  ) -> tuple[np.ndarray, np.ndarray]:
    """At most 2·buckets points keeping each bucket's lowest and highest value (in order), so
    spikes survive. pyqtgraph's own peak downsampling does the same at paint time, but it walks
    the whole series on every update; decimating once here keeps a 100k-point redraw cheap."""
    n = len(y)
    if n <= 2 * buckets:
        return x, y
    size = n // buckets
    used = size * buckets
    blocks = y[:used].reshape(buckets, size)
    low, high = blocks.argmin(axis=1), blocks.argmax(axis=1)
    first, second = np.minimum(low, high), np.maximum(low, high)
    base = np.arange(buckets) * size
    index = np.empty(2 * buckets, dtype=np.int64)
    index[0::2], index[1::2] = base + first, base + second
    index = np.concatenate([index, np.arange(used, n)])  # the newest points, undecimated
    return x[index], y[index]


class SmoothedCache:
    """EMA of a growing column, extended with only the new points (a full 100k-point EMA at
    every redraw would be most of the redraw's cost)."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._values = np.empty(0)

    def get(self, values: np.ndarray, smoothing: float, key: tuple) -> np.ndarray:
        n, done = len(values), len(self._values)
        same = self._key == key and 0 < done <= n and values[done - 1] == self._last
        if not same or smoothing <= 0:
            self._values = ema(values, smoothing)
        elif n > done:
            tail = lfilter([1.0 - smoothing], [1.0, -smoothing], values[done:],
                           zi=[smoothing * self._values[-1]])[0]
            self._values = np.concatenate([self._values, tail])
        self._key = key
        self._last = values[n - 1] if n else None
        return self._values
