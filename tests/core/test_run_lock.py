"""The run-folder lock (run_lock.py): a second process is told who holds a folder, a lock left
by a killed process is taken over, and two runs never write one folder's metrics."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.jobs import UserFacingError
from workbench.core.training import run_folder, run_lock

ROOT = Path(__file__).resolve().parents[2]
HOLD = """
import sys, time
from pathlib import Path
from workbench.core.training import run_lock
run_lock.acquire(Path(sys.argv[1]))
print("locked", flush=True)
time.sleep(120)
"""

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def _holder(folder: Path) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout.readline().strip() == "locked"
    return child


def test_a_second_process_is_told_which_process_holds_the_folder(tmp_path):
    child = _holder(tmp_path)
    try:
        with pytest.raises(UserFacingError) as caught:
            run_lock.acquire(tmp_path)
        message = str(caught.value)
        assert f"process {child.pid} on {socket.gethostname()}" in message
        assert "since 20" in message and "in use" in message
    finally:
        child.kill()
        child.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path):
    child = _holder(tmp_path)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert run_lock.read_holder(tmp_path)["pid"] == child.pid  # its text is still there
    lock = run_lock.acquire(tmp_path)  # but the kernel released its lock when it died
    try:
        assert run_lock.read_holder(tmp_path)["pid"] == os.getpid()
    finally:
        lock.release()


def test_the_lock_is_reentrant_within_one_process_and_released_by_the_last_holder(tmp_path):
    first = run_lock.acquire(tmp_path)
    second = run_lock.acquire(tmp_path)  # the CLI claims, then the trainer locks again
    first.release()
    probe = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(120)", ""),
                            str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert "locked" not in probe.stdout and "in use by process" in probe.stderr
    second.release()
    run_lock.acquire(tmp_path).release()


def test_claiming_a_folder_another_process_holds_is_refused_with_its_pid(tmp_path):
    child = _holder(tmp_path)  # e.g. a `train --out` still loading its corpus
    try:
        (tmp_path / run_folder.MARKER).write_text('{"run_id": "x"}')
        with pytest.raises(UserFacingError, match=f"process {child.pid}"):
            run_folder.claim(tmp_path)
        with pytest.raises(UserFacingError, match=f"process {child.pid}"):
            run_folder.open_for_resume(tmp_path)
    finally:
        child.kill()
        child.wait()


TRAIN = """
import sys
from workbench.app.train_cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_two_cli_runs_into_one_folder_never_mix_and_metrics_have_no_duplicates(tmp_path):
    """The second `--out` and a `--resume` while the first runs are refused naming it; the
    old code let both write (one died on the other's .tmp, metrics.jsonl had duplicates)."""
    from tests.core.training_fixtures import write_tiny_recipe
    from workbench.app.train_cli import main

    recipe = write_tiny_recipe(tmp_path, max_steps=100_000)
    out = tmp_path / "run"
    first = subprocess.Popen([sys.executable, "-c", TRAIN, str(recipe), "--out", str(out)],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not (out / "checkpoints" / "latest.json").exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.2)
        assert main([str(recipe), "--out", str(out), "--max-steps", "20"]) == 2
        assert main(["--resume", str(out), "--max-steps", "200000"]) == 2
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=120)
    # a step can save both the latest and the best checkpoint: one line each, told by kind
    steps = [(line["event"], line["step"], line.get("kind")) for line in
             map(json.loads, (out / "metrics.jsonl").read_text().splitlines())]
    assert steps and len(steps) == len(set(steps))
