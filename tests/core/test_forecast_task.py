"""Forecasting a series (issue 33 item 4): the series cut in time and standardised by its
training part, a CSV column read or its bad cell named, and a recurrent forecaster trained from
a recipe headless: its validation scores the next values and runs the free forecast against the
truth, its checkpoint answers `workbench predict` in the series' own units."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.app.predict_cli import main as predict
from workbench.app.train_cli import main as train
from workbench.core.config.forecast import ForecastTaskConfig
from workbench.core.data.series import prepare_series, read_series
from workbench.core.jobs import UserFacingError
from workbench.core.training.checkpoint_meta import check_tokenizers

RECIPE = """name = "series"
seed = 5
[task]
name = "forecast"
data = "{data}"
path = "{path}"
column = "load"
length = 400
period = 25
noise = 0.05
window = 24
horizon = 30
[model]
arch = "gru"
embedding_size = 8
hidden_size = 16
[training]
max_steps = 40
batch_size = 8
seq_len = 24
eval_every = 20
log_every = 10
sample_every = 0
warmup_steps = 2
lr = 0.01
checkpoint_every = 20
threads = 1
"""


def test_the_series_is_cut_in_time_and_standardised_by_its_training_part():
    config = ForecastTaskConfig(length=1000, val_fraction=0.1, test_fraction=0.2)
    data = prepare_series(config, seed=1)
    assert (len(data.train), len(data.val), len(data.test)) == (700, 100, 200)
    assert abs(float(data.train.mean())) < 1e-5 and float(data.train.std()) == pytest.approx(1)
    again = prepare_series(config, seed=1)
    assert np.array_equal(data.val, again.val)  # the seed fixes a generated series
    assert data.vocabulary()["kind"] == "series" and data.vocabulary()["std"] > 0


def test_a_csv_column_by_name_or_number_and_a_bad_cell_by_its_line(tmp_path):
    path = tmp_path / "load.csv"
    path.write_text("day,load\n" + "".join(f"{i},{i * 2.5}\n" for i in range(50)))
    values, name = read_series(path, "load")
    assert values[3] == 7.5 and name == "load.csv: load"
    assert np.array_equal(read_series(path, "-1")[0], values)
    path.write_text("day,load\n1,2\n2,high\n")
    with pytest.raises(UserFacingError, match="line 3: 'high' in column 'load' is not a"):
        read_series(path, "load")
    with pytest.raises(UserFacingError, match="has no column 'price'"):
        read_series(path, "price")


@pytest.fixture
def run_dir(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    recipe = tmp_path / "series.toml"
    recipe.write_text(RECIPE.format(data="seasonal", path=""))
    out = tmp_path / "run"
    assert train([str(recipe), "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_a_forecaster_trains_validates_and_forecasts_in_the_series_units(run_dir, capsys):
    events = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    evals = [e for e in events if e["event"] == "eval"]
    assert evals and "mae" in evals[-1]["metrics"]
    forecast = evals[-1]["results"]["forecast"]
    assert len(forecast["forecast"]) == len(forecast["truth"]) == len(forecast["t"]) == 30
    assert forecast["t"][0] == 320  # the first step after the training part (80 % of 400)
    mae = np.abs(np.array(forecast["forecast"]) - np.array(forecast["truth"])).mean()
    assert evals[-1]["metrics"]["mae"] == pytest.approx(mae, rel=1e-5)
    assert any(e["event"] == "test" for e in events)  # the held-out last part, scored
    assert predict([str(run_dir), "10 12 14 13 11", "--tokens", "7", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert len(answer["forecast"]) == 7
    meta = json.loads((run_dir / "checkpoints" / "latest.json").read_text())
    meta["tokenizer"]["std"] = 0
    with pytest.raises(UserFacingError, match="series scale"):
        check_tokenizers(meta, "run")


def test_a_csv_series_trains_from_its_column(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    csv = tmp_path / "load.csv"
    t = np.arange(300)
    csv.write_text("day,load\n" + "".join(f"{i},{100 + 10 * np.sin(i / 5):.3f}\n" for i in t))
    recipe = tmp_path / "series.toml"
    recipe.write_text(RECIPE.format(data="file", path="load.csv").replace("max_steps = 40",
                                                                          "max_steps = 20"))
    assert train([str(recipe), "--out", str(tmp_path / "run")]) == 0
    files = json.loads((tmp_path / "run" / "data.json").read_text())["files"]
    assert any(name.endswith("load.csv") for name in files)  # the run knows its data
