"""`workbench train RECIPE`: headless runs write the same run folder the GUI opens."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest
import torch
from training_fixtures import tiny_hooks_for_any_config, write_tiny_recipe

from workbench.app.train_cli import main
from workbench.core.events import EvalLogged, StepLogged
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.runs import read_run


@pytest.fixture(autouse=True)
def tiny_models(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(ModelHooks, "default", staticmethod(tiny_hooks_for_any_config))


def test_cli_trains_a_tiny_recipe_into_a_run_folder(tmp_path, capsys):
    recipe = write_tiny_recipe(tmp_path)
    out = tmp_path / "run1"
    assert main([str(recipe), "--out", str(out), "--max-steps", "20", "--device", "cpu"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(out)
    assert "step 20/20" in captured.err and "val " in captured.err
    run = read_run(out)
    steps = [e for e in run.events if isinstance(e, StepLogged)]
    assert [e.step for e in steps] == [5, 10, 15, 20]
    assert steps[-1].loss < steps[0].loss
    assert [e.step for e in run.events if isinstance(e, EvalLogged)] == [10, 20]
    assert run.samples and run.has_checkpoint
    assert 'path = "' in run.recipe_text and "sha256" in run.recipe_text
    meta = json.loads((out / "checkpoints" / "latest.json").read_text())
    assert meta["step"] == 20 and meta["tokenizer"]["kind"] == "char"


def test_cli_resumes_a_run_to_more_steps(tmp_path, capsys):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    assert main(["--resume", str(out), "--max-steps", "30"]) == 0
    steps = [e.step for e in read_run(out).events if isinstance(e, StepLogged)]
    assert steps == [5, 10, 15, 20, 25, 30]


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_a_run_trained_on_a_gpu_continues_where_there_is_none(tmp_path, capsys):
    """The lab's GPU trains with `--device cuda`, which the run's recipe records; a laptop
    resumed it with 'no CUDA GPU is available' and no way to choose, in the window or here."""
    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out), "--device", "cpu"]) == 0
    recorded = out / "recipe.toml"
    recorded.write_text(recorded.read_text().replace('device = "cpu"', 'device = "cuda"'))
    capsys.readouterr()
    assert main(["--resume", str(out), "--max-steps", "15"]) == 0
    assert "trained on 'cuda', which this computer does not have" in capsys.readouterr().err
    assert main(["--resume", str(out), "--max-steps", "20", "--device", "cpu"]) == 0
    assert "does not have" not in capsys.readouterr().err
    steps = [e.step for e in read_run(out).events if isinstance(e, StepLogged)]
    assert steps == [5, 10, 15, 20]


def test_an_unexpected_failure_prints_its_details_and_a_foreseen_one_does_not(
        tmp_path, capsys, monkeypatch):
    """The message of an unexpected failure says the Details hold what a developer needs; in
    a terminal they must follow it (the CLI printed the message alone)."""
    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    assert main([str(recipe), "--out", str(tmp_path / "done")]) == 0
    capsys.readouterr()
    assert main(["--resume", str(tmp_path / "done")]) == 1  # foreseen: a finished run
    err = capsys.readouterr().err
    assert "already trained 10 of its 10 steps" in err and "Details" not in err

    def planted(*args, **kwargs):
        raise RuntimeError("a planted fault")

    monkeypatch.setattr("workbench.core.training_loop.trainer.lr_at", planted)
    monkeypatch.setenv("WORKBENCH_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("WORKBENCH_DEBUG", "0")  # restored after the --debug run below
    assert main([str(recipe), "--out", str(tmp_path / "fails")]) == 1
    err = capsys.readouterr().err  # a bug: its traceback is in a log file the message names
    assert "Something went wrong that the app did not expect" in err and "Traceback" not in err
    (log,) = (tmp_path / "logs").iterdir()
    assert f"{log} holds what a developer needs" in err
    assert "RuntimeError: a planted fault" in log.read_text()
    assert main([str(recipe), "--out", str(tmp_path / "fails2"), "--debug"]) == 1
    message, details = capsys.readouterr().err.split("Details:\n")
    assert "Traceback" in details and "RuntimeError: a planted fault" in details


def test_a_run_from_a_recipe_named_relatively_resumes_from_elsewhere(tmp_path, monkeypatch):
    write_tiny_recipe(tmp_path, max_steps=10)
    monkeypatch.chdir(tmp_path)
    assert main(["tiny.toml", "--out", "run"]) == 0
    monkeypatch.chdir(tmp_path / "run")  # the corpus path was kept relative to the recipe
    assert main(["--resume", ".", "--max-steps", "15"]) == 0


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX")
def test_sigterm_stops_like_ctrl_c_keeping_the_exact_step_and_no_temporary_files(tmp_path,
                                                                                  capsys):
    recipe = write_tiny_recipe(tmp_path, max_steps=100_000)
    out = tmp_path / "run"

    def terminate_when_training() -> None:
        metrics = out / "metrics.jsonl"
        while not (metrics.is_file() and metrics.stat().st_size > 2000):
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=terminate_when_training)
    killer.start()
    try:
        assert main([str(recipe), "--out", str(out)]) == 130
    finally:
        killer.join()
    assert "SIGTERM: stopping after this step" in capsys.readouterr().err
    logged = [e.step for e in read_run(out).events if isinstance(e, StepLogged)]
    saved = json.loads((out / "checkpoints" / "latest.json").read_text())["step"]
    assert saved >= logged[-1] > 0  # stopped within a step of the last line, and kept it
    assert not [p.name for p in out.rglob("*.tmp")]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handlers put back


def test_cli_refuses_bad_input_with_a_message(tmp_path, capsys):
    assert main([str(tmp_path / "missing.toml")]) == 2
    assert "Cannot read the recipe" in capsys.readouterr().err
    assert main([]) == 2
    recipe = write_tiny_recipe(tmp_path)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out), "--max-steps", "5"]) == 0
    assert main([str(recipe), "--out", str(out)]) == 2
    assert "already holds a run" in capsys.readouterr().err
    (tmp_path / "tiny.txt").unlink()
    assert main([str(recipe), "--out", str(tmp_path / "other")]) == 1
    assert "tiny.txt does not exist" in capsys.readouterr().err


def test_a_finished_run_resumes_only_with_more_steps(tmp_path, capsys):
    from workbench.core.events import JobFailed, JobFinished
    from workbench.core.jobs import JobControl, JobSpec, drive
    from workbench.core.training_loop.recipe_run import resume_steps

    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    assert main(["--resume", str(out)]) == 1
    assert "already trained 10 of its 10 steps" in capsys.readouterr().err
    events = list(drive(JobSpec("resume", lambda c: resume_steps(out, c, extend_to=15)),
                        JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    assert not any(isinstance(e, JobFailed) for e in events)
    steps = [e.step for e in read_run(out).events if isinstance(e, StepLogged)]
    assert steps == [5, 10, 15]


@pytest.fixture
def three_cores(monkeypatch):
    """A pretend 3-core machine; torch's thread count is put back after the test."""
    import os

    import torch

    before = torch.get_num_threads()
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    yield torch
    torch.set_num_threads(before)


def test_auto_threads_keep_a_core_free_with_or_without_a_window(three_cores, monkeypatch):
    """Headless took every core, oversubscribing a shared 2-core machine (issue 35 item 5)."""
    from workbench.core.cpu_threads import choose_threads

    assert choose_threads(0) == 2  # the GUI thread keeps one core
    assert choose_threads(0, gui=False) == 2  # headless: the machine's other users keep one
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert choose_threads(0, gui=False) == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert choose_threads(0, gui=False) == choose_threads(0) == 1
    assert choose_threads(5, gui=False) == choose_threads(5) == 5


@pytest.mark.slow
def test_cli_threads_flag_sets_torch_threads_and_zero_means_every_core(tmp_path, three_cores,
                                                                        capsys):
    torch = three_cores
    recipe = write_tiny_recipe(tmp_path, max_steps=5)  # the recipe asks for 1 thread
    assert main([str(recipe), "--out", str(tmp_path / "default")]) == 0
    assert torch.get_num_threads() == 1
    assert main([str(recipe), "--out", str(tmp_path / "two"), "--threads", "2"]) == 0
    assert torch.get_num_threads() == 2
    assert main([str(recipe), "--out", str(tmp_path / "auto"), "--threads", "0"]) == 0
    assert torch.get_num_threads() == 2  # all cores but one, for the machine's other users
    assert main(["--resume", str(tmp_path / "two"), "--max-steps", "10", "--threads", "0"]) == 0
    assert torch.get_num_threads() == 2
    assert main([str(recipe), "--threads", "-1"]) == 2
    assert "--threads must be 0" in capsys.readouterr().err


def test_a_run_recorded_before_split_stripes_resumes_on_its_contiguous_split(tmp_path):
    from workbench.core.config.tokenizer import TokenizerConfig
    from workbench.core.training.recipe import load_recipe, recipe_to_toml
    from workbench.core.training_loop.recipe_run import split_it_was_trained_on

    recipe = load_recipe(write_tiny_recipe(tmp_path))
    recipe.tokenizer = TokenizerConfig(kind="char", split_stripes=40)
    today = tmp_path / "today.toml"
    today.write_text(recipe_to_toml(recipe), encoding="utf-8")  # what a run folder keeps
    assert split_it_was_trained_on(today, recipe.tokenizer).split == "documents"
    striped = tmp_path / "striped.toml"  # a run folder's recipe from before held-out documents
    striped.write_text(today.read_text().replace('split = "documents"\n', ""), encoding="utf-8")
    kept = split_it_was_trained_on(striped, load_recipe(striped).tokenizer)
    assert (kept.split, kept.split_stripes) == ("stripes", 40)
    before = tmp_path / "before.toml"  # a run folder's recipe from before stripes existed
    before.write_text(striped.read_text().replace("split_stripes = 40\n", ""), encoding="utf-8")
    assert load_recipe(before).tokenizer.split == "documents"  # a new recipe: the default
    kept = split_it_was_trained_on(before, load_recipe(before).tokenizer)
    assert (kept.split, kept.split_stripes) == ("stripes", 1)
