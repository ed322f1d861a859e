"""Distributed data-parallel training with 2 CPU ranks under gloo, through the real command
(`workbench train --nproc 2`, which starts torchrun): the curve of N ranks with batch B is the
curve of one process with batch N·B, Ctrl-C stops every rank after the same step with a
checkpoint, resuming continues exactly, and a rank that dies ends the run with a message and
a loadable checkpoint."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed_toy
import pytest
from training_fixtures import write_tiny_recipe

from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                 reason="finds the ranks' processes through /proc")]


def recipe(folder: Path, batch_size: int) -> Path:
    """The tiny GRU recipe (a carried hidden state per rank), every step logged, a constant
    learning rate so a run's curve does not depend on its step count."""
    path = write_tiny_recipe(folder, max_steps=3000)
    text = path.read_text().replace("batch_size = 8", f"batch_size = {batch_size}")
    text = text.replace("log_every = 5", 'log_every = 1\nschedule = "constant"')
    out = folder / f"tiny-b{batch_size}.toml"
    out.write_text(text)
    return out


# the ranks import the workbench this test file belongs to (the script's own folder comes first
# on a script's path, and an installed workbench may be another checkout's)
RANK_ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


_STARTED: list[subprocess.Popen] = []


def start(*args: str) -> subprocess.Popen:
    """`workbench train` in a session of its own, so the launcher and its ranks can be ended
    together (a failed test left torchrun's ranks training 3,000 steps beside the suite)."""
    process = subprocess.Popen([sys.executable, "-m", "workbench", "train", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=RANK_ENV, start_new_session=True)
    _STARTED.append(process)
    return process


@pytest.fixture(autouse=True)
def _end_every_launcher():
    yield
    while _STARTED:
        process = _STARTED.pop()
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        if process.stdout is not None and not process.stdout.closed:
            process.communicate()  # the pipes closed; the group's ranks are gone with it
        process.wait()


def wait_for_checkpoint(run: Path, process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not (run / "checkpoints" / "latest.json").exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no checkpoint written"
        time.sleep(0.1)


def curve(run: Path) -> dict[tuple[str, int], tuple[float, int]]:
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    return {(d["event"], d["step"]): (d.get("loss", d.get("val_loss")), d["tokens_seen"])
            for d in lines if d["event"] in ("step", "eval")}


def test_two_ranks_match_one_process_and_resume_exactly_after_ctrl_c(tmp_path, monkeypatch,
                                                                    capsys):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    run = tmp_path / "ddp"
    launcher = start(str(recipe(tmp_path, 8)), "--nproc", "2", "--out", str(run))
    wait_for_checkpoint(run, launcher)
    launcher.send_signal(signal.SIGINT)  # what Ctrl-C in the terminal does
    _, err = launcher.communicate(timeout=120)
    assert launcher.returncode == 130, err
    stopped = load_checkpoint(run / "checkpoints" / "latest.json")
    k = stopped.step
    assert f"stopped: every rank ended after its current step. The latest checkpoint (step {k})" \
        in err
    assert max(step for _, step in curve(run)) == k  # every rank stopped after step k
    assert stopped.meta["state_ranks"] == 2 and len(stopped.state) == 2  # a GRU state each

    resumed = start("--nproc", "2", "--resume", str(run), "--max-steps", str(k + 10))
    _, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err

    reference = tmp_path / "one"
    assert main([str(recipe(tmp_path, 16)), "--out", str(reference), "--max-steps",
                 str(k + 10)]) == 0
    expected, got = curve(reference), curve(run)
    assert got.keys() == expected.keys() and len(got) >= k + 10
    for key, (loss, tokens) in expected.items():
        assert got[key][0] == pytest.approx(loss, abs=2e-5), key
        assert got[key][1] == tokens, key

    # the same run continued in one process keeps its 16 sequences a step
    capsys.readouterr()
    assert main(["--resume", str(run), "--max-steps", str(k + 15)]) == 0
    assert "2 process(es) with batch 8 each; 1 go on with batch 16 each" in capsys.readouterr().err
    meta = load_checkpoint(run / "checkpoints" / "latest.json").meta
    assert (meta["training"]["batch_size"], meta["world_size"], meta["step"]) == (16, 1, k + 15)


def rank_pid(launcher: subprocess.Popen, rank: int) -> int:
    """The pid of one rank: a child of the launcher (torchrun's agent) whose RANK is `rank`."""
    for proc in Path("/proc").iterdir():
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            environ = (proc / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == launcher.pid and f"RANK={rank}".encode() in environ:
            return int(proc.name)
    raise AssertionError(f"rank {rank} not found")


def test_a_rank_that_dies_ends_the_run_with_a_message_and_a_checkpoint(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    run = tmp_path / "ddp"
    launcher = start(str(recipe(tmp_path, 8)), "--nproc", "2", "--out", str(run))
    try:
        wait_for_checkpoint(run, launcher)
        victim = rank_pid(launcher, 1)
        subprocess.run(["kill", "-KILL", str(victim)], check=True)
        _, err = launcher.communicate(timeout=120)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
    assert launcher.returncode == 1
    assert f"error: rank 1 (pid {victim}) was killed by SIGKILL" in err
    saved = load_checkpoint(run / "checkpoints" / "latest.json")  # whole, loadable
    assert f"The latest checkpoint (step {saved.step}) is in {run}" in err
    assert f"workbench train --nproc 2 --resume {run}" in err
    assert saved.step >= 10 and saved.meta["state_ranks"] == 2


def test_a_task_with_a_masked_loss_trains_on_two_ranks_as_in_one_process(tmp_path):
    """Tagging padded digits: the ranks' shares hold different numbers of real digits, and
    each rank's loss counts by its share of them (Task.loss_weight)."""
    run = tmp_path / "ddp"
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                           "--nproc-per-node", "2", distributed_toy.__file__, str(run), "8",
                           "12"], capture_output=True, text=True, timeout=300, env=RANK_ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    distributed_toy.register()
    try:
        distributed_toy.train(tmp_path / "one", 16, 12)
    finally:
        distributed_toy.unregister()
    expected, got = curve(tmp_path / "one"), curve(run)
    assert got.keys() == expected.keys() and len(got) == 12 + 3  # steps; evals 5, 10, 12
    for key, (loss, tokens) in expected.items():
        assert got[key][0] == pytest.approx(loss, abs=2e-5), key
        assert got[key][1] == tokens, key
