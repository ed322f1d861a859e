"""Forecasting a series of numbers (the course's autoregressive time-series framing, seed 002
L415-515): the task config and the model config it trains (torch-free).

The series is a generated one (a sine wave, or a seasonal one: a slow trend, a yearly and a
weekly wave and noise) or a column of a CSV file. It is cut in time: the first part trains, the
next validates, the last tests, so the model always forecasts a future it has not seen, and it
is standardised by the training part's mean and spread. The model reads the last `window`
values and predicts each next one (many to many, one step ahead); validation also rolls it out
freely for `horizon` steps from the end of the training part, and the Training panel draws that
forecast against the truth. The model is any recurrent cell of the Architecture panel with a
linear input (one number to `embedding_size` values) and a linear output (to one number):
`SeriesForecasterConfig` records it in checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from workbench.core.config.base import Curve, ModelConfig, ResultPlot, TaskConfig
from workbench.core.config.fields import param, range_problems
from workbench.core.config.models import config_from_dict, register_config
from workbench.core.config.tasks import register_task_config

SERIES = ("seasonal", "sine", "file")


@register_task_config
@dataclass
class ForecastTaskConfig(TaskConfig):
    name: ClassVar[str] = "forecast"
    title: ClassVar[str] = "Forecast a series"
    short_title: ClassVar[str] = "Forecast"
    io_shape: ClassVar[str] = "next"
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (mean squared error, standardised)", train="loss"),
        Curve("mae", "Mean absolute error of the free forecast (standardised)",
              short="forecast MAE"),
    )
    result_plots: ClassVar[tuple[ResultPlot, ...]] = (
        ResultPlot("forecast", "t", "forecast", "Free forecast against the truth (grey)",
                   x_label="time step", reference="truth"),
    )
    encoder_head: ClassVar[bool] = True  # the cell picked, with a numeric input and output
    counts_vocabulary: ClassVar[bool] = False  # numbers: no vocabulary to size
    data: str = param("seasonal", "Series", "A generated sine or seasonal series, or a column "
                      "of a CSV file.", choices=SERIES)
    path: str = param("", "CSV file", "With 'file': a CSV file with a header row.")
    column: str = param("-1", "Column", "With 'file': the column's header, or its number "
                        "(0 first, -1 last).")
    length: int = param(2000, "Length", "Points of a generated series.", min=200,
                        max=1_000_000)
    period: int = param(50, "Period", "Points in one cycle of a generated series.", min=4,
                        max=10_000)
    noise: float = param(0.1, "Noise", "Standard deviation of the noise added to a generated "
                         "series.", min=0.0, max=5.0, step=0.05)
    window: int = param(64, "Window", "Past values the model reads while training.", min=4,
                        max=4096)
    horizon: int = param(100, "Forecast horizon", "Steps the validation forecast runs freely, "
                         "each prediction read back as the next input.", min=1, max=10_000)
    val_fraction: float = param(0.1, "Validation share", "The part after training.",
                                min=0.05, max=0.4, step=0.05)
    test_fraction: float = param(0.1, "Test share", "The last part.", min=0.0, max=0.4,
                                 step=0.05)

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.data not in SERIES:
            problems.append(f"Series must be one of {', '.join(SERIES)}.")
        if self.data == "file" and not self.path.strip():
            problems.append("Choose the CSV file of the series.")
        if self.val_fraction + self.test_fraction > 0.6:
            problems.append("Validation and test together may hold at most 60% of the series.")
        return problems

    def model_for_counts(self, encoder: Any, labels: int = 0) -> ModelConfig | None:
        from workbench.core.config.models import config_to_dict

        return SeriesForecasterConfig(encoder=config_to_dict(encoder))


@register_config
@dataclass
class SeriesForecasterConfig(ModelConfig):
    """A recurrent cell between a linear input (1 → embedding_size) and a linear output."""

    arch: ClassVar[str] = "series_forecaster"
    title: ClassVar[str] = "Series forecaster"
    language_model: ClassVar[bool] = False
    tasks: ClassVar[tuple[str, ...]] = ()  # built by the task, never picked in the panel
    encoder: dict[str, Any] = field(default_factory=dict)  # the recurrent cell's config

    def encoder_config(self) -> ModelConfig:
        return config_from_dict(dict(self.encoder))

    def problems(self) -> list[str]:
        from workbench.core.recurrent_cells import CELLS

        try:
            inner = self.encoder_config()
        except (ValueError, TypeError) as exc:
            return [f"The cell settings cannot be read: {exc}"]
        problems = [p for p in inner.problems() if "vocabulary" not in p.lower()]
        if inner.arch not in CELLS:
            problems.append(f"A series forecaster runs a recurrent cell ({', '.join(CELLS)}), "
                            f"not '{inner.title}'.")
        if getattr(inner, "bidirectional", False):
            problems.append("A forecast must not read the future: bidirectional is off.")
        return problems
