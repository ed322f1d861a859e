"""The curves of one run as growable numpy columns, fed by training events (no Qt here).

Live events and events read back from a run folder go through the same `add`, so a run looks
the same whether it was watched or opened later. A `DivergenceHandled` event drops the points
past the step training rolled back to (they are trained again) and keeps a marker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from workbench.core.events import (
    DivergenceHandled,
    EvalLogged,
    Event,
    SampleGenerated,
    StepLogged,
    TestLogged,
)

X_AXES = {"step": "Step", "tokens": "Tokens seen", "time": "Wall time (s)"}
TRAIN_COLUMNS = ("step", "tokens", "time", "loss", "lr", "grad_norm", "tok_s", "clip_rate")
VAL_COLUMNS = ("step", "tokens", "time")  # then one column per metric the validations name


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

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def add_column(self, name: str) -> None:
        """A new column, nan for the rows before it (a metric the first validations lacked)."""
        grown = np.full((len(self.names) + 1, self._data.shape[1]), np.nan)
        grown[:-1] = self._data
        self._data = grown
        self.names = self.names + (name,)

    def append_named(self, values: dict[str, float]) -> None:
        """Append a row given by name; columns it does not name get nan, new names a column."""
        for name in values:
            if name not in self.names:
                self.add_column(name)
        self.append(*(values.get(name, np.nan) for name in self.names))

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
    live: bool = False  # this window's training job writes it
    followed: bool = False  # another process writes it and the window follows it
    train: Columns = field(default_factory=lambda: Columns(TRAIN_COLUMNS))
    val: Columns = field(default_factory=lambda: Columns(VAL_COLUMNS))
    divergences: list[Divergence] = field(default_factory=list)
    samples: list[SampleGenerated] = field(default_factory=list)
    version: int = 0  # bumped at each change, so views redraw only what changed
    task: str = "language_model"  # its task's declared curves are the ones to plot
    grad_clip: float = 0.0  # its clipping threshold (0: none or unknown), a line on ‖g‖₂
    results: list[tuple[int, dict]] = field(default_factory=list)  # (step, structured results)
    description: str | None = None  # what it trains (its recipe, in a line); None: not read
    test: TestLogged | None = None  # its latest test figure (at its end, or on request)

    def add(self, event: Event) -> None:
        if isinstance(event, StepLogged):
            self.train.append(event.step, event.tokens_seen, event.elapsed_s, event.loss,
                              event.lr, event.grad_norm, event.tokens_per_s, event.clip_rate)
        elif isinstance(event, EvalLogged):
            self.val.append_named({"step": event.step, "tokens": event.tokens_seen,
                                   "time": event.elapsed_s, **event.metrics})
            if event.results:
                self.results.append((event.step, event.results))
        elif isinstance(event, DivergenceHandled):
            tokens = self.train["tokens"][-1] if self.train.size else 0.0
            time = self.train["time"][-1] if self.train.size else 0.0
            self.divergences.append(Divergence(event.step, tokens, time, event.reason))
            self.truncate_after(event.resumed_at)
        elif isinstance(event, SampleGenerated):
            self.samples.append(event)
        elif isinstance(event, TestLogged):
            self.test = event
        else:
            return
        self.version += 1

    def truncate_after(self, step: int) -> None:
        """Drop what was logged after `step` (a rollback or a resume trains it again)."""
        self.train.truncate_after(step)
        self.val.truncate_after(step)
        self.results = [(s, r) for s, r in self.results if s <= step]
        if self.test is not None and self.test.step > step:
            self.test = None

    def best_validation(self) -> tuple[int, float] | None:
        """(index, loss) of the lowest validation loss so far (the 'best' checkpoint's)."""
        if not self.val.size or "val_loss" not in self.val:
            return None
        losses = self.val["val_loss"]
        if not np.isfinite(losses).any():
            return None
        index = int(np.nanargmin(losses))
        return index, float(losses[index])


def ema(values: np.ndarray, smoothing: float) -> np.ndarray:
    """Exponential moving average y_t = s·y_{t-1} + (1-s)·x_t, started at x_0 (s in [0, 1))."""
    if smoothing <= 0 or len(values) < 2:
        return values
    return _ema_from(values, smoothing, smoothing * values[0])


def _ema_from(values: np.ndarray, smoothing: float, start: float) -> np.ndarray:
    """The EMA filter run from the state `start`; scipy.signal loads on first use, not with
    the window (importing it costs ~0.3-0.6 s of start-up; the app preloads it after show)."""
    from scipy.signal import lfilter

    return lfilter([1.0 - smoothing], [1.0, -smoothing], values, zi=[start])[0]


# Perplexity and bits are views of the training loss: exp(L) and L / ln 2. Both are monotonic,
# so the loss's decimation picks the same points for them, and the smoothed perplexity is
# exp(EMA of the loss), the perplexity of the smoothed mean loss (as perplexity is defined).
LOSS_VIEWS = {
    "loss": lambda loss: loss,
    "perplexity": lambda loss: np.exp(np.minimum(loss, 700.0)),
    "bits": lambda loss: loss / math.log(2.0),
}


def metric_source(metric: str):
    """(training column, transform) that a plot's curve is drawn from."""
    if metric in LOSS_VIEWS:
        return "loss", LOSS_VIEWS[metric]
    return metric, lambda values: values


def peak_indices(y: np.ndarray, buckets: int = 1024) -> np.ndarray | slice:
    """Indices of at most 2·buckets points keeping each bucket's lowest and highest value (in
    order), so spikes survive. pyqtgraph's own peak downsampling does the same at paint time,
    but it walks the whole series on every update; decimating once here keeps a 100k-point
    redraw cheap. (The panel keeps a PeakDecimator per curve; this is one used once.)"""
    return PeakDecimator().indices(y, buckets, ())


def bucket_peaks(y: np.ndarray, buckets: int) -> np.ndarray:
    """The low and the high of each of `buckets` equal buckets of y, in order of position."""
    size = len(y) // buckets
    blocks = y[: size * buckets].reshape(buckets, size)
    low, high = blocks.argmin(axis=1), blocks.argmax(axis=1)
    base = np.arange(buckets) * size
    index = np.empty(2 * buckets, dtype=np.int64)
    index[0::2], index[1::2] = base + np.minimum(low, high), base + np.maximum(low, high)
    return index


class PeakDecimator:
    """`peak_indices` of a growing column, reusing the whole buckets of the previous call: while
    the bucket size stays the same a new point changes only the undecimated tail, so a
    100k-point update does not walk all 100k points again."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._index = np.empty(0, dtype=np.int64)

    def indices(self, y: np.ndarray, buckets: int, key: tuple) -> np.ndarray | slice:
        """`key` names the data (run, column, what changes it other than appending)."""
        n = len(y)
        if n <= 2 * buckets:
            self._key = None
            return slice(None)
        size = n // buckets
        if self._key != (key, buckets, size):
            self._key = (key, buckets, size)
            self._index = bucket_peaks(y[: size * buckets], buckets)
        return np.concatenate([self._index, np.arange(size * buckets, n)])


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
            tail = _ema_from(values[done:], smoothing, smoothing * self._values[-1])
            self._values = np.concatenate([self._values, tail])
        self._key = key
        self._last = values[n - 1] if n else None
        return self._values


def runs_csv(runs: list[RunSeries]) -> tuple[list[str], list[list]]:
    """The runs' points in long form for CSV export: one row per logged point, one column per
    training quantity and per validation metric any of the runs logged."""
    metrics: list[str] = []
    for run in runs:
        metrics += [n for n in run.val.names[len(VAL_COLUMNS):] if n not in metrics]
    header = ["run", "split", "step", "tokens", "time_s", "loss", "lr", "grad_norm",
              "tokens_per_s", *metrics]
    rows: list[list] = []
    for run in runs:
        t = run.train
        for i in range(t.size):
            rows.append([run.name, "train", int(t["step"][i]), int(t["tokens"][i]),
                         t["time"][i], t["loss"][i], t["lr"][i], t["grad_norm"][i],
                         t["tok_s"][i]] + [""] * len(metrics))
        v = run.val
        for i in range(v.size):
            rows.append([run.name, "val", int(v["step"][i]), int(v["tokens"][i]),
                         v["time"][i], "", "", "", ""]
                        + [v[m][i] if m in v else "" for m in metrics])
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in header]
    return header, columns
