"""Red-team family 'unbounded reads' (issue 30, defects 4 and 15): every reader of a file the
app did not write itself, handed a named pipe, a link to /dev/zero or a file far over its
kind's limit, refuses it within a second with a message, instead of hanging (a FIFO), filling
memory (/dev/zero) or reading gigabytes first.

Each reader runs in a daemon thread; a FIFO it blocks on is released at the end by opening it
for writing, so a failing test does not leave a thread stuck."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path

import pytest

from workbench.core.data.pairs import read_pairs
from workbench.core.embeddings.interchange import load_vectors
from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError
from workbench.core.lessons import load_lessons
from workbench.core.training import checkpoint_files, runs
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training.recipe import load_recipe
from workbench.core.training.run_tail import JsonlTail

SECONDS = 1.0
GOOD_MANIFEST = {"format": "sequence-workbench-checkpoint/1", "step": 1,
                 "weights": "latest-000001-abc.safetensors", "weights_sha256": "0" * 64}


def _run_folder(root: Path) -> Path:
    run = root / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "metrics.jsonl").write_text('{"event": "step", "step": 1, "loss": 1.0}\n')
    (run / "samples.jsonl").write_text("")
    (run / "checkpoints" / "latest.json").write_text(json.dumps(GOOD_MANIFEST))
    return run


def _settings(root):
    assert runs.read_settings(root / "run") == {}


def _open_run(root):
    with pytest.raises(UserFacingError, match="cannot be read|not a run folder"):
        runs.read_run(root / "run")


def _tail(root):
    with pytest.raises(UserFacingError, match="cannot be read"):
        JsonlTail(root / "run" / "samples.jsonl").read()


def _manifest(root):
    with pytest.raises(UserFacingError, match="damaged|missing|cannot be read"):
        load_checkpoint(root / "run" / "checkpoints" / "latest.json")


def _weights(root):
    with pytest.raises(UserFacingError, match="cannot be read|not a regular file|not read"):
        load_checkpoint(root / "run" / "checkpoints" / "latest.json")


def _prune(root):
    checkpoint_files.prune(root / "run" / "checkpoints")  # returns, having read nothing


def _recipe(root):
    with pytest.raises(UserFacingError, match="Cannot read the recipe"):
        load_recipe(root / "recipe.toml")


def _lessons(root):
    lessons, problems = load_lessons(root / "lessons")
    assert problems and "bad.toml" in problems[0]


def _pairs(root):
    with pytest.raises(UserFacingError, match="cannot be read|not read"):
        read_pairs(root / "pairs.tsv")


def _vectors_text(root):
    with pytest.raises(UserFacingError, match="not a regular file|cannot be read|not read"):
        load_vectors(root / "vectors.bin", "word2vec-text")


def _vectors_binary(root):
    with pytest.raises(UserFacingError, match="not a regular file|cannot be read|not read"):
        load_vectors(root / "vectors.bin", "word2vec-binary")


# (reader, the file it is handed a bad version of, the limit kind of that file)
READERS = {
    "run.json": (_settings, "run/run.json", "settings"),
    "samples.jsonl (open)": (_open_run, "run/samples.jsonl", "line"),
    "samples.jsonl (follow)": (_tail, "run/samples.jsonl", None),
    "checkpoint manifest": (_manifest, "run/checkpoints/latest.json", "manifest"),
    "checkpoint weights": (_weights, "run/checkpoints/latest-000001-abc.safetensors", "weights"),
    "pruning latest.json": (_prune, "run/checkpoints/latest.json", "manifest"),
    "recipe": (_recipe, "recipe.toml", "recipe"),
    "lesson": (_lessons, "lessons/bad.toml", "lesson"),
    "pairs": (_pairs, "pairs.tsv", "task data"),
    "vectors (text)": (_vectors_text, "vectors.bin", "vectors"),
    "vectors (binary)": (_vectors_binary, "vectors.bin", "vectors"),
}


def _within_a_second(reader, root: Path, release: Path | None) -> None:
    failure: list[BaseException] = []

    def run():
        try:
            reader(root)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(SECONDS)
    took = time.monotonic() - started
    if worker.is_alive() and release is not None:
        with contextlib.suppress(OSError):  # let a reader blocked on the FIFO go
            os.close(os.open(release, os.O_WRONLY | os.O_NONBLOCK))
    assert not worker.is_alive(), f"still reading after {took:.1f} s"
    if failure:
        raise failure[0]


@pytest.fixture
def root(tmp_path):
    _run_folder(tmp_path)
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "good.toml").write_text(
        'title = "t"\ngoal = "g"\n[[step]]\ndo = "d"\n')
    return tmp_path


@pytest.mark.parametrize("name", list(READERS))
def test_a_fifo_is_refused_within_a_second(root, name):
    reader, relative, _ = READERS[name]
    path = root / relative
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    _within_a_second(reader, root, path)


@pytest.mark.parametrize("name", list(READERS))
def test_a_link_to_dev_zero_is_refused_within_a_second(root, name):
    reader, relative, _ = READERS[name]
    path = root / relative
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")
    _within_a_second(reader, root, None)


@pytest.mark.parametrize("name", [n for n, (_, _, kind) in READERS.items()
                                  if kind not in (None, "line", "weights", "vectors")])
def test_a_file_over_its_kinds_limit_is_refused_before_reading(root, name):
    reader, relative, kind = READERS[name]
    path = root / relative
    path.unlink(missing_ok=True)
    with open(path, "wb") as out:  # sparse: the size is there, no bytes to read
        out.truncate(bounded.limit_of(kind) + 1)
    _within_a_second(reader, root, None)


def test_the_bounded_reader_stops_a_growing_file_and_checks_for_cancel(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * (3 * bounded.PIECE))
    calls = []
    assert bounded.read_bytes(path, "settings", lambda: calls.append(1), limit=4 * bounded.PIECE)
    assert len(calls) >= 3  # once a piece at least
    with pytest.raises(bounded.FileTooLargeError):
        bounded.read_bytes(path, "settings", limit=2 * bounded.PIECE)

    class StopError(Exception):
        pass

    def stop():
        raise StopError

    with pytest.raises(StopError):  # a JobControl's check raises JobCancelledError the same way
        bounded.read_bytes(path, "settings", stop, limit=4 * bounded.PIECE)


def test_a_folder_where_the_pairs_should_be_is_named_as_a_folder(tmp_path):
    (tmp_path / "pairs.tsv").mkdir()
    with pytest.raises(UserFacingError, match="is a folder"):
        read_pairs(tmp_path / "pairs.tsv")
