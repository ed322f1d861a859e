"""A run's curves for practitioners' tools (issue 35 item 4): TensorBoard's event files, read
back with TensorBoard's own reader, and `workbench export RUN --csv`."""

from __future__ import annotations

import csv
import importlib.util
import io
import json

import pytest
from training_fixtures import tiny_hooks_for_any_config, write_tiny_recipe

from workbench.app import export_cli
from workbench.app.main import main as workbench
from workbench.app.train_cli import main as train
from workbench.core.events import DivergenceHandled, EvalLogged, StepLogged
from workbench.core.training.evaluation import ModelHooks


@pytest.fixture(autouse=True)
def tiny_models(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(ModelHooks, "default", staticmethod(tiny_hooks_for_any_config))


def logged(run_dir, event: str) -> list[dict]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [d for d in map(json.loads, lines) if d["event"] == event]


def scalars(run_dir) -> dict[str, list[tuple[int, float]]]:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    reader = EventAccumulator(str(run_dir / "tensorboard"), purge_orphaned_data=True)
    reader.Reload()
    return {tag: [(s.step, s.value) for s in reader.Scalars(tag)]
            for tag in reader.Tags()["scalars"]}


def test_tensorboard_gets_the_runs_scalars(tmp_path, capsys):
    pytest.importorskip("tensorboard")
    out = tmp_path / "run"
    assert train([str(write_tiny_recipe(tmp_path, max_steps=20)), "--out", str(out),
                  "--tensorboard", "--device", "cpu"]) == 0
    assert "tensorboard = true" in (out / "recipe.toml").read_text()
    read = scalars(out)
    steps, evals = logged(out, "step"), logged(out, "eval")
    assert [s for s, _ in read["train/loss"]] == [d["step"] for d in steps] == [5, 10, 15, 20]
    for tag, key in (("train/loss", "loss"), ("train/learning_rate", "lr"),
                     ("train/grad_norm", "grad_norm")):
        assert [v for _, v in read[tag]] == pytest.approx([d[key] for d in steps], rel=1e-6)
    assert [s for s, _ in read["val/loss"]] == [10, 20]
    assert [v for _, v in read["val/loss"]] == pytest.approx([d["val_loss"] for d in evals],
                                                              rel=1e-6)
    assert [v for _, v in read["val/perplexity"]] == pytest.approx(
        [d["perplexity"] for d in evals], rel=1e-6)
    for name in evals[-1]["metrics"]:  # the task's own metrics (accuracy and the like)
        assert f"val/{name}" in read


def test_a_resumed_run_continues_the_same_curves(tmp_path, capsys):
    pytest.importorskip("tensorboard")
    out = tmp_path / "run"
    assert train([str(write_tiny_recipe(tmp_path, max_steps=20)), "--out", str(out),
                  "--tensorboard"]) == 0
    assert train(["--resume", str(out), "--max-steps", "30"]) == 0
    assert [s for s, _ in scalars(out)["train/loss"]] == [5, 10, 15, 20, 25, 30]


def test_without_tensorboard_the_run_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tensorboard" else real(name, *a))
    out = tmp_path / "run"
    assert train([str(write_tiny_recipe(tmp_path)), "--out", str(out), "--tensorboard"]) == 2
    err = capsys.readouterr().err
    assert "TensorBoard is not installed" in err and "sequence-workbench[tensorboard]" in err
    assert not (out / "metrics.jsonl").exists()  # refused before anything was written


def test_export_csv_writes_every_logged_step_and_validation(tmp_path, capsys):
    out = tmp_path / "run"
    assert train([str(write_tiny_recipe(tmp_path, max_steps=20)), "--out", str(out)]) == 0
    capsys.readouterr()
    target = tmp_path / "curves.csv"
    assert workbench(["export", str(out), "--csv", "--out", str(target)]) == 0
    assert capsys.readouterr().out.strip() == str(target)  # says where it wrote
    rows = list(csv.DictReader(target.open()))
    steps, evals = logged(out, "step"), logged(out, "eval")
    assert [int(r["step"]) for r in rows] == [5, 10, 15, 20]
    assert [float(r["loss"]) for r in rows] == [d["loss"] for d in steps]
    assert [float(r["lr"]) for r in rows] == [d["lr"] for d in steps]
    with_val = [r for r in rows if r["val_loss"]]
    assert [int(r["step"]) for r in with_val] == [10, 20]
    assert [float(r["val_loss"]) for r in with_val] == [d["val_loss"] for d in evals]
    assert workbench(["export", str(out), "--csv"]) == 0  # standard output by default
    assert capsys.readouterr().out == target.read_text()


def test_export_refuses_what_is_not_a_run(tmp_path, capsys):
    assert workbench(["export", str(tmp_path), "--csv"]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert workbench(["export", str(tmp_path)]) == 2
    assert "--csv" in capsys.readouterr().err


def test_csv_rows_of_a_validation_alone_and_a_rollback():
    events = [StepLogged(10, 2.0, 1e-3, 0.5, False, 100, 50.0, 1.0),
              EvalLogged(10, 2.1, 8.2, 3.0, 100, 1.1, {"accuracy": 0.25}),
              EvalLogged(12, 2.05, 7.8, 2.9, 120, 1.3, {"accuracy": 0.5}),
              StepLogged(20, 9.0, 1e-3, 50.0, True, 200, 50.0, 2.0),
              DivergenceHandled(20, "loss spiked", 5e-4, 1, resumed_at=10),
              StepLogged(20, 1.9, 5e-4, 0.4, False, 200, 50.0, 2.5)]
    rows = list(csv.DictReader(io.StringIO(export_cli.curves_csv(events))))
    assert [r["step"] for r in rows] == ["10", "12", "20", "20"]
    assert rows[0]["val_loss"] == "2.1" and rows[0]["val_accuracy"] == "0.25"
    assert rows[1]["loss"] == "" and rows[1]["val_accuracy"] == "0.5"
    assert rows[2]["rolled_back_to"] == "10" and rows[3]["rolled_back_to"] == ""
