"""Forecasting a series of numbers (config/forecast.py; SEEDS 2.3 R14, the seed's
autoregressive time-series framing): the model reads `window` past values and predicts each
next one, scored by the mean squared error in standardised units (teacher forcing, like a
language model reading the true text). Validation scores the same on the validation part (each
prediction reads the true past, the last `window` values of the training part first), and runs
the free forecast: from the end of the training part the model predicts `horizon` steps, each
read back as its next input, drawn against the truth with its mean absolute error."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.forecast import ForecastTaskConfig, SeriesForecasterConfig
from workbench.core.config.models import config_to_dict
from workbench.core.data.series import prepare_series
from workbench.core.events import JobFinished, Progress
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.recurrent_cells import CELLS
from workbench.core.tasks.base import Batch, Evaluation, Task, register_task

EVAL_ROWS = 256  # validation windows scored a pass


def windows(series: np.ndarray, starts: np.ndarray, length: int) -> tuple[np.ndarray,
                                                                        np.ndarray]:
    """Inputs series[s : s + length] and their next values series[s + 1 : s + length + 1]."""
    index = starts[:, None] + np.arange(length)[None, :]
    return series[index], series[index + 1]


@register_task
class ForecastTask(Task):
    name = ForecastTaskConfig.name

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        yield Progress(0, None, "Preparing the series")
        seed = recipe.training.seed if recipe is not None else 0
        return prepare_series(config, seed)

    def vocabulary(self) -> dict:
        return self.data.vocabulary()

    def build_model(self, model_config, build):
        arch = getattr(model_config, "arch", "")
        if arch == SeriesForecasterConfig.arch:  # a resumed run: its own config
            return build(model_config)
        if arch not in CELLS:
            raise UserFacingError(f"'{model_config.title}' cannot forecast a series here: "
                                  f"choose a recurrent cell ({', '.join(CELLS)}).")
        return build(SeriesForecasterConfig(encoder=config_to_dict(model_config)))

    def start(self, model, training, device) -> None:
        self.device, self.batch_size, self.seed = device, training.batch_size, training.seed
        self.window = min(self.config.window, len(self.data.train) - 2)
        if self.window < 4:
            raise UserFacingError(f"The training part has {len(self.data.train)} values: too "
                                  "few for a window of 4. Use a longer series.")

    def batch(self, step: int) -> Batch:
        train = self.data.train
        rng = np.random.default_rng((self.seed, step))  # the same batch for the same step
        starts = rng.integers(0, len(train) - self.window - 1, size=self.batch_size)
        inputs, targets = windows(train, starts, self.window)
        return Batch({"inputs": inputs, "targets": targets}, tokens=inputs.size)

    def loss(self, model, batch: Batch, carry):
        predictions, _ = model(batch["inputs"])
        return F.mse_loss(predictions.float(), batch["targets"]), None

    def _scored(self, model, part: np.ndarray) -> tuple[float, int]:
        """Summed squared error and count of one-step predictions of `part`, each reading the
        true values before it (the training part's last window first)."""
        context = np.concatenate([self.data.train[-self.window:], part]).astype(np.float32)
        starts = np.arange(0, len(context) - self.window - 1)
        total, count = 0.0, 0
        for first in range(0, len(starts), EVAL_ROWS):
            chosen = starts[first:first + EVAL_ROWS]
            inputs, targets = windows(context, chosen, self.window)
            predictions, _ = model(torch.from_numpy(inputs).to(self.device))
            last = predictions[:, -1].float().cpu().numpy()  # each window's next value
            total += float(((last - targets[:, -1]) ** 2).sum())
            count += len(chosen)
        return total, count

    @torch.no_grad()
    def evaluate(self, model, amp: bool) -> Evaluation:
        was_training = model.training
        model.eval()
        try:
            total, count = self._scored(model, self.data.val)
            steps = min(self.config.horizon, len(self.data.val))
            context = torch.from_numpy(self.data.train[-self.window:].copy()).to(self.device)
            forecast = model.rollout(context, steps).float().cpu().numpy()
        finally:
            model.train(was_training)
        truth = self.data.val[:steps]
        mae = float(np.abs(forecast - truth).mean())
        return Evaluation(total / max(count, 1), {"mae": mae}, {"forecast": {
            "t": list(range(len(self.data.train), len(self.data.train) + steps)),
            "forecast": forecast.tolist(), "truth": truth.tolist()}})

    @torch.no_grad()
    def test(self, model, amp: bool = False) -> Evaluation | None:
        if len(self.data.test) < 2:
            return None
        was_training = model.training
        model.eval()
        try:
            total, count = self._scored(model, self.data.test)
        finally:
            model.train(was_training)
        return Evaluation(total / max(count, 1))

    def preview(self, model, step: int) -> str:
        evaluation = self.evaluate(model, False)
        forecast = evaluation.results["forecast"]
        shown = ", ".join(f"{v:.2f}" for v in forecast["forecast"][:6])
        truth = ", ".join(f"{v:.2f}" for v in forecast["truth"][:6])
        return (f"step {step}: forecast {shown} … against the truth {truth} … (standardised; "
                f"mean absolute error {evaluation.metrics['mae']:.3f} over "
                f"{len(forecast['truth'])} steps)")

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        """The numbers in `text` (spaces or commas), then the next ones the model forecasts,
        in the series' own units."""
        try:
            values = np.array([float(v) for v in text.replace(",", " ").split()])
        except ValueError:
            raise UserFacingError("Give the series as numbers separated by spaces or commas.") \
                from None
        if len(values) < 2:
            raise UserFacingError("Give at least two values of the series to continue.")
        mean, std = float(vocabulary.get("mean", 0.0)), float(vocabulary.get("std", 1.0))
        steps = int(getattr(settings, "horizon", 10) or 10)

        def job(control):
            device = next(model.parameters()).device
            context = torch.tensor((values - mean) / std, dtype=torch.float32, device=device)
            model.eval()
            forecast = model.rollout(context, steps).cpu().numpy() * std + mean
            yield JobFinished(result=[float(v) for v in forecast])

        return JobSpec("Forecasting", job)
