"""Following a run another process writes: incremental reading of its lines, rewrites told
from growth, checkpoints read only when whole, and a follow that never changes the run."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time

import pytest
import torch
from training_fixtures import events_of, tiny_request

from workbench.core.events import CheckpointLoaded, Notice, RunGrew, StepLogged
from workbench.core.jobs import JobControl, UserFacingError
from workbench.core.training import checkpoints, runs
from workbench.core.training.run_follow import follow_name, follow_run_steps, token_unit
from workbench.core.training.run_tail import JsonlTail, RunTail


def step_line(step: int, loss: float = 1.0) -> str:
    return runs.event_to_json(StepLogged(step, loss, 1e-3, 0.5, False, step * 10, 100.0,
                                         step / 10)) + "\n"


def append(path, text: str | bytes) -> None:
    with open(path, "ab") as out:
        out.write(text.encode() if isinstance(text, str) else text)


def test_tail_returns_only_new_complete_lines(tmp_path):
    path = tmp_path / "metrics.jsonl"
    tail = JsonlTail(path)
    assert tail.read().lines == []  # not there yet: nothing, no error
    append(path, step_line(1) + step_line(2)[:20])  # the second line is half written
    assert [json.loads(x)["step"] for x in tail.read().lines] == [1]
    assert tail.read().lines == []
    append(path, step_line(2)[20:] + step_line(3))
    read = tail.read()
    assert [json.loads(x)["step"] for x in read.lines] == [2, 3] and not read.restarted


def test_tail_tells_a_rewrite_from_growth(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(step_line(s) for s in range(1, 6)))
    tail = JsonlTail(path)
    assert len(tail.read().lines) == 5
    # a sync tool replaces the file by a longer copy (new file, renamed over): growth
    copy = tmp_path / "copy"
    copy.write_text("".join(step_line(s) for s in range(1, 8)))
    os.replace(copy, path)
    read = tail.read()
    assert [json.loads(x)["step"] for x in read.lines] == [6, 7] and not read.restarted
    # a resume cuts the log back to its checkpoint and goes on with other values: a rewrite
    runs.truncate_after(tmp_path, 4)
    append(path, step_line(5, loss=0.5) + step_line(6, loss=0.5) + step_line(7, loss=0.5)
           + step_line(8, loss=0.5))
    read = tail.read()
    assert read.restarted
    assert [json.loads(x)["step"] for x in read.lines] == [1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.slow
def test_tail_reads_a_large_file_in_pieces(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(step_line(s) for s in range(1, 1001)))
    tail = JsonlTail(path, max_bytes=10_000)
    steps, reads = [], 0
    while True:
        read = tail.read()
        reads += 1
        steps += [json.loads(x)["step"] for x in read.lines]
        if not read.more:
            break
    assert steps == list(range(1, 1001)) and reads > 5
    long_line = json.dumps({"event": "step", "pad": "x" * 30_000}) + "\n"
    append(path, long_line + step_line(1001))  # one line longer than a read
    assert len(tail.read().lines) + len(tail.read().lines) == 2


def test_run_tail_parses_skips_damage_and_restarts_both_files(tmp_path):
    (tmp_path / "metrics.jsonl").write_text(step_line(1) + "{not json\n" + step_line(2))
    (tmp_path / "samples.jsonl").write_bytes(b'{"step": 2, "text": "hi"}\n\xff\xfe\n')
    tail = RunTail(tmp_path)
    chunk = tail.read()
    assert [e.step for e in chunk.events] == [1, 2] and chunk.skipped_lines == 2
    assert [s.text for s in chunk.samples] == ["hi"] and not chunk.restarted
    (tmp_path / "metrics.jsonl").write_text(step_line(1))  # only metrics rewritten
    chunk = tail.read()
    assert chunk.restarted and [e.step for e in chunk.events] == [1]
    assert [s.text for s in chunk.samples] == ["hi"]  # samples sent again with it


class Follow:
    """Drive a follow job on a thread, as the window does, collecting its events."""

    def __init__(self, run_dir, loader) -> None:
        self.control, self.wake, self.events = JobControl(), threading.Event(), []
        self.steps = follow_run_steps(run_dir, self.control, loader, self.wake, poll_s=0.02)
        self.thread = threading.Thread(target=self._run)
        self.thread.start()

    def _run(self) -> None:
        for event in self.steps:
            self.events.append(event)

    def wait_for(self, predicate, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in list(self.events) if predicate(e)]
            if found:
                return found[-1]
            time.sleep(0.01)
        raise AssertionError(f"not seen in {timeout} s; events: {self.events[-5:]}")

    def stop(self) -> None:
        self.control.stop()
        self.wake.set()
        self.thread.join(10)
        assert not self.thread.is_alive()


def checked_loader(path):
    """Loads as the app does: refuses weights that do not match their JSON."""
    return checkpoints.load_checkpoint(path).step


def save_tiny(folder, step: int, kind: str = "latest"):
    model = torch.nn.Linear(2, 2)
    torch.nn.init.constant_(model.weight, float(step))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return checkpoints.save_checkpoint(folder, kind, model, optimizer,
                                       {"step": step, "training": {"max_steps": 100}})


def test_follow_yields_lines_and_whole_checkpoints_only(tmp_path):
    folder = tmp_path / "checkpoints"
    (tmp_path / "metrics.jsonl").write_text(step_line(1))
    save_tiny(folder, 10)
    follow = Follow(tmp_path, checked_loader)
    try:
        first = follow.wait_for(lambda e: isinstance(e, CheckpointLoaded))
        assert (first.step, first.max_steps, first.snapshot) == (10, 100, 10)
        assert follow.wait_for(lambda e: isinstance(e, RunGrew)).events[0].step == 1
        # a sync that delivers the JSON of step 20 before its weights: not read half-way
        saved = tmp_path / "next"
        save_tiny(saved, 20)
        os.replace(saved / "latest.json", folder / "latest.json")
        follow.wake.set()
        time.sleep(0.3)
        assert [e.step for e in follow.events if isinstance(e, CheckpointLoaded)] == [10]
        weights = json.loads((folder / "latest.json").read_text())["weights"]
        os.replace(saved / weights, folder / weights)
        follow.wake.set()
        assert follow.wait_for(lambda e: isinstance(e, CheckpointLoaded)
                               and e.step == 20).snapshot == 20
        append(tmp_path / "metrics.jsonl", step_line(2))
        assert follow.wait_for(lambda e: isinstance(e, RunGrew)
                               and e.events and e.events[0].step == 2)
    finally:
        follow.stop()


def test_unreadable_checkpoint_is_reported_once(tmp_path, monkeypatch):
    from workbench.core.training import run_follow

    monkeypatch.setattr(run_follow, "PATIENCE_S", 0.1)
    save_tiny(tmp_path / "checkpoints", 5)
    folder = tmp_path / "checkpoints"
    (folder / json.loads((folder / "latest.json").read_text())["weights"]).write_bytes(b"bad")
    follow = Follow(tmp_path, checked_loader)
    try:
        notice = follow.wait_for(lambda e: isinstance(e, Notice))
        assert "latest checkpoint" in notice.text and "do not match" in notice.text
        time.sleep(0.3)
        assert len([e for e in follow.events if isinstance(e, Notice)]) == 1
    finally:
        follow.stop()


def test_following_a_real_run_never_changes_it(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    events_of(tiny_request(tmp_path, run_dir=run_dir, max_steps=20, checkpoint_every=10))
    before = {p: (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
              for p in run_dir.rglob("*") if p.is_file()}
    follow = Follow(run_dir, checked_loader)
    try:
        grew = follow.wait_for(lambda e: isinstance(e, RunGrew))
        assert [e.step for e in grew.events if isinstance(e, StepLogged)] == [5, 10, 15, 20]
        assert grew.samples and grew.name == "run"  # no recipe.toml: the folder's name
        assert follow.wait_for(lambda e: isinstance(e, CheckpointLoaded)).step == 20
    finally:
        follow.stop()
    after = {p: (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
             for p in run_dir.rglob("*") if p.is_file()}
    assert after == before


def test_a_followed_run_is_named_by_its_recipe_when_its_folder_says_nothing(tmp_path):
    (tmp_path / "server-run").mkdir()
    assert follow_name(tmp_path / "server-run") == "server-run"
    (tmp_path / "server-run" / "recipe.toml").write_text('name = "char-gru"\n')
    assert follow_name(tmp_path / "server-run") == "char-gru (server-run)"
    runs.write_settings(tmp_path / "server-run", name="mine")
    assert follow_name(tmp_path / "server-run") == "mine"
    assert token_unit(tmp_path / "server-run") == ""
    (tmp_path / "server-run" / "recipe.toml").write_text('[tokenizer]\nkind = "char"\n')
    assert token_unit(tmp_path / "server-run") == "character"


def test_follow_refuses_what_is_not_a_run_folder(tmp_path):
    with pytest.raises(UserFacingError, match="not a folder"):
        next(follow_run_steps(tmp_path / "missing", JobControl(), checked_loader))
    (tmp_path / "a-run").mkdir()
    (tmp_path / "a-run" / "metrics.jsonl").write_text("")
    with pytest.raises(UserFacingError, match="choose one of them"):
        next(follow_run_steps(tmp_path, JobControl(), checked_loader))
