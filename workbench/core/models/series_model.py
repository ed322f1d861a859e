"""The series forecaster (config/forecast.py): numbers in, the next numbers out, through any
recurrent cell of the zoo. x_t (one number) → W_in x_t + b (embedding_size values) → the cell's
layers → h_t → w_out · h_t + b, the prediction of x_{t+1}. The cell is built as the language
models build theirs (fused where torch has the module, step by step otherwise)."""

from __future__ import annotations

import torch
from torch import nn

from workbench.core.jobs import UserFacingError
from workbench.core.models.registry import register_builder
from workbench.core.models.step_recurrent import recurrent_layers


@register_builder("series_forecaster")
class SeriesForecaster(nn.Module):
    supports_state = False
    causal = True
    predicts_next_token = False

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        inner = config.encoder_config()
        self.kind = inner.arch
        self.input = nn.Linear(1, inner.embedding_size)
        self.rnn = recurrent_layers(
            inner.arch, inner.embedding_size, inner.hidden_size, num_layers=inner.num_layers,
            dropout=inner.dropout, config=inner,
            nonlinearity=getattr(inner, "nonlinearity", None) if inner.arch == "rnn" else None)
        self.drop = nn.Dropout(inner.dropout) if inner.dropout > 0 else nn.Identity()
        self.head = nn.Linear(inner.hidden_size, 1)

    def init_state(self, batch_size: int, device: torch.device | None = None):
        return None

    def forward(self, values: torch.Tensor, state=None) -> tuple[torch.Tensor, object]:
        """values (B, T) → the predictions of the next values (B, T), and the state."""
        hidden, state = self.rnn(self.drop(self.input(values.unsqueeze(-1))), state)
        return self.head(self.drop(hidden)).squeeze(-1), state

    @torch.no_grad()
    def rollout(self, context: torch.Tensor, steps: int) -> torch.Tensor:
        """Read `context` (T,), then forecast `steps` values, each read back as the next
        input (the free forecast the validation draws)."""
        predictions, state = self(context.unsqueeze(0))
        value, out = predictions[:, -1:], []
        for _ in range(steps):
            out.append(value)
            predicted, state = self(value, state)
            value = predicted[:, -1:]
        return torch.cat(out, dim=1)[0]

    def trace(self, *args, **kwargs):
        raise UserFacingError("A series forecaster reads numbers, not text: the inspectors "
                              "read language models. Its forecast is in the Training panel.")
