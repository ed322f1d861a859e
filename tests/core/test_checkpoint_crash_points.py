"""Crash safety of checkpoints and resume, by killing real child processes (SIGKILL).

A save is killed before each of its file-system calls in turn (every crash point, found by
counting, not listed by hand): the previous `latest` and `best` must load after every one.
Then a training child is killed at 20 random points and resumed each time; the finished run
must log exactly what an uninterrupted one logs.
"""

from __future__ import annotations

import json
import random
import shutil

import pytest
from fault_children import run_killed_at, save_tiny_checkpoint, train_or_resume, truncate_run

from workbench.core.training.checkpoints import load_checkpoint, load_resumable
from workbench.core.training.runs import read_run

# one forkserver per worker; slow: each kills real trainers at many points (minutes on 2 cores)
pytestmark = [pytest.mark.xdist_group("fault-children"), pytest.mark.slow]


def _prepared(tmp_path):
    template = tmp_path / "template"
    assert run_killed_at(save_tiny_checkpoint, (str(template), "latest", 1, 11), 0) == 0
    assert run_killed_at(save_tiny_checkpoint, (str(template), "best", 1, 13), 0) == 0
    return template


@pytest.mark.parametrize("kind", ["latest", "best"])
def test_every_crash_point_of_a_save_keeps_the_previous_checkpoints(tmp_path, kind):
    template = _prepared(tmp_path)
    folder = tmp_path / "checkpoints"
    crash_points = 0
    for kill_at in range(1, 200):
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(template, folder)
        code = run_killed_at(save_tiny_checkpoint, (str(folder), kind, 2, 17), kill_at)
        latest, best = load_checkpoint(folder / "latest.json"), load_checkpoint(
            folder / "best.json")
        other = best if kind == "latest" else latest
        saved = latest if kind == "latest" else best
        assert other.meta["seed"] == (13 if kind == "latest" else 11), kill_at
        assert (saved.step, saved.meta["seed"]) in {(1, 11 if kind == "latest" else 13),
                                                    (2, 17)}, kill_at
        assert load_resumable(folder)[1] == "", kill_at  # 'latest' itself, no fallback
        if code == 0:
            assert (saved.step, saved.meta["seed"]) == (2, 17)
            break
        assert code == -9
        crash_points += 1
    assert crash_points >= 10  # weights, kept older manifest, manifest, clean-up


def test_a_killed_save_leaves_no_temporary_files_after_the_next_save(tmp_path):
    template = _prepared(tmp_path)
    assert run_killed_at(save_tiny_checkpoint, (str(template), "latest", 2, 17), 6) == -9
    assert any(p.name.endswith(".tmp") for p in template.iterdir())
    assert run_killed_at(save_tiny_checkpoint, (str(template), "latest", 3, 19), 0) == 0
    names = sorted(p.name for p in template.iterdir())
    assert not [n for n in names if n.endswith(".tmp")], names
    assert "step-000001.json" in names  # the previous latest, kept as a fallback
    assert len([n for n in names if n.endswith(".safetensors")]) == 3  # latest, best, older


def test_resume_falls_back_to_best_then_to_older_checkpoints_and_says_so(tmp_path):
    folder = _prepared(tmp_path)
    assert run_killed_at(save_tiny_checkpoint, (str(folder), "latest", 2, 17), 0) == 0
    latest_weights = folder / json.loads((folder / "latest.json").read_text())["weights"]
    latest_weights.write_bytes(latest_weights.read_bytes()[:-9])
    checkpoint, note = load_resumable(folder)
    assert checkpoint.meta["seed"] == 13 and "Resumed from the best at step 1" in note
    assert "do not match" in note  # the reason the latest could not be used
    (folder / "best.json").write_text("{")
    checkpoint, note = load_resumable(folder)
    assert checkpoint.meta["seed"] == 11 and "older checkpoint step-000001.json" in note


def test_every_crash_point_of_a_resume_rewrite_keeps_the_whole_log(tmp_path):
    lines = [json.dumps({"event": "step", "step": s, "loss": 1.0}) + "\n" for s in range(1, 31)]
    whole, cut = "".join(lines), "".join(lines[:10])
    for kill_at in range(1, 200):
        (tmp_path / "metrics.jsonl").write_text(whole)
        code = run_killed_at(truncate_run, (str(tmp_path), 10), kill_at)
        assert (tmp_path / "metrics.jsonl").read_text() in (whole, cut), kill_at
        if code == 0:
            assert (tmp_path / "metrics.jsonl").read_text() == cut
            assert not list(tmp_path.glob(".*.tmp"))
            break
    assert kill_at > 10


def _step_losses(run_dir):
    record = read_run(run_dir)
    assert record.skipped_lines == 0
    return [(type(e).__name__, e.step, round(getattr(e, "loss", getattr(e, "val_loss", 0)), 6))
            for e in record.events if type(e).__name__ in ("StepLogged", "EvalLogged")]


def test_a_trainer_killed_at_20_random_points_resumes_to_the_uninterrupted_run(tmp_path):
    reference, interrupted = tmp_path / "reference", tmp_path / "interrupted"
    reference.mkdir()
    interrupted.mkdir()
    assert run_killed_at(train_or_resume, (str(reference), 60), 0) == 0
    rng = random.Random(17)
    kills = 0
    while kills < 20:
        code = run_killed_at(train_or_resume, (str(interrupted), 60), rng.randint(1, 120))
        assert code in (0, -9)
        if code == 0:
            break
        kills += 1
    assert kills == 20  # the run was still unfinished after 20 kills
    assert run_killed_at(train_or_resume, (str(interrupted), 60), 0) == 0
    assert _step_losses(interrupted) == _step_losses(reference)
    assert load_checkpoint(interrupted / "checkpoints").step == 60
