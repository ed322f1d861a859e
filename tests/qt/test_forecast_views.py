"""The window's side of forecasting (issue 33 item 4): the Training panel draws the latest free
forecast against the truth (grey) in its own plot, the loss and the forecast's error as curves;
the Architecture panel says the model reads numbers, with no vocabulary to size."""

from __future__ import annotations

import numpy as np

from workbench.core.config.forecast import ForecastTaskConfig
from workbench.core.events import EvalLogged, StepLogged
from workbench.qt.panels.training.curves import CurvesView
from workbench.qt.panels.training.series import RunSeries
from workbench.qt.widgets.counted_sizes import vocabulary_text


def test_the_forecast_is_drawn_against_the_truth(qtbot):
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    run = RunSeries("f", "f", "#0072B2", task="forecast")
    for step in range(10, 60, 10):
        run.add(StepLogged(step, 1.0 / step, 1e-3, 0.5, False, 64 * step, 5e4, step / 10))
    truth = np.sin(np.arange(30) / 4)
    run.add(EvalLogged(50, 0.02, tokens_seen=3200, elapsed_s=5.0,
                       metrics={"val_loss": 0.02, "mae": 0.3},
                       results={"forecast": {"t": list(range(320, 350)),
                                             "forecast": list(truth + 0.1),
                                             "truth": list(truth)}}))
    view.set_runs([run])
    assert "forecast" in view.plots and "mae" in view.plots
    x, y = view._items["f"][("forecast", "result")].getData()
    tx, ty = view._items["f"][("forecast", "reference")].getData()
    assert list(x) == list(range(320, 350)) and np.allclose(ty, truth)
    assert np.allclose(y, truth + 0.1) and list(tx) == list(x)
    assert "(grey)" in view.plots["forecast"].titleLabel.text


def test_the_architecture_panel_says_it_reads_numbers():
    assert "no vocabulary" in vocabulary_text(ForecastTaskConfig, None)
    assert not ForecastTaskConfig.counts_vocabulary and ForecastTaskConfig.encoder_head


def test_the_forecasters_diagram_and_card_say_numbers_not_tokens():
    from workbench.core.config.forecast import SeriesForecasterConfig
    from workbench.core.config.models import LstmConfig, config_to_dict
    from workbench.core.models.summary import summarize
    from workbench.qt.widgets.architecture_cards import architecture_card
    from workbench.qt.widgets.block_diagram import diagram_boxes

    config = SeriesForecasterConfig(encoder=config_to_dict(LstmConfig(embedding_size=16,
                                                                      hidden_size=32)))
    summary = summarize(config)
    titles = [box.title for box in diagram_boxes(summary)]
    assert titles == ["values x_t", "Linear W_in", "LSTM", "Linear w_out", "x̂_t+1"]
    card = architecture_card(summary, config.encoder_config())
    assert "Series forecaster" in card and "embedding lookup" not in card
    assert "LSTM cell" in card  # the cell's own card follows
