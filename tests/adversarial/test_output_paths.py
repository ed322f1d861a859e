"""Red-team family 'where results go' (issue 30, defects 14 and 15): `vectors --out` (and the
map's) to a folder, a device, a missing folder or a read-only disk is refused before any
training, in one line; a write that still fails after training keeps the result elsewhere and
says where, instead of a traceback and the vectors lost."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from workbench.app.main import main as workbench
from workbench.core.embeddings.interchange import load_vectors
from workbench.core.files import destination
from workbench.core.files.destination import check_destination, write_kept
from workbench.core.jobs import UserFacingError

SENTENCES = ("the king spoke to the queen . the queen answered the king .\n"
             "a man and a woman walked to the castle . the castle was old .\n")


def _read_only(monkeypatch):
    """A folder on a read-only disk, as creating a file there fails (root ignores modes)."""
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    monkeypatch.setattr(destination.tempfile, "mkstemp", refuse)


BAD_DESTINATIONS = {
    "a folder": (lambda tmp, mp: tmp, "is a folder: give a file name"),
    "/dev/full": (lambda tmp, mp: Path("/dev/full"), "is a device, not a file"),
    "a missing folder": (lambda tmp, mp: tmp / "absent" / "v.txt", "does not exist"),
    "a named pipe": (lambda tmp, mp: (os.mkfifo(tmp / "pipe"), tmp / "pipe")[1],
                     "is a named pipe \\(FIFO\\), not a file"),
    "a read-only disk": (lambda tmp, mp: (_read_only(mp), tmp / "v.txt")[1],
                         "cannot be written \\(Read-only file system\\)"),
    "inside a file": (lambda tmp, mp: ((tmp / "f").write_text("x"), tmp / "f" / "v.txt")[1],
                      "cannot be written to|does not exist"),
}


@pytest.mark.parametrize("name", list(BAD_DESTINATIONS))
def test_a_destination_that_cannot_take_a_file_is_refused(tmp_path, monkeypatch, name):
    make, message = BAD_DESTINATIONS[name]
    with pytest.raises(UserFacingError, match=message):
        check_destination(make(tmp_path, monkeypatch), "vectors")


def test_a_writable_destination_passes_and_leaves_nothing_behind(tmp_path):
    assert check_destination(tmp_path / "v.txt", "vectors") == tmp_path / "v.txt"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a folder", "/dev/full", "a missing folder", "a named pipe"])
def test_vectors_refuses_a_bad_out_before_training(tmp_path, capsys, monkeypatch, name):
    from workbench.core.embeddings import training

    monkeypatch.setattr(training, "train_embeddings_job",
                        lambda *a: pytest.fail("trained before checking --out"))
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES * 40)
    out = BAD_DESTINATIONS[name][0](tmp_path, monkeypatch)
    assert workbench(["vectors", str(corpus), "--out", str(out)]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.startswith("error: ") and "Traceback" not in said


def test_vectors_refuses_a_bad_map_out_before_training(tmp_path, capsys, monkeypatch):
    from workbench.core.embeddings import training

    monkeypatch.setattr(training, "train_embeddings_job",
                        lambda *a: pytest.fail("trained before checking --map-out"))
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES * 40)
    assert workbench(["vectors", str(corpus), "--out", str(tmp_path / "v.txt"), "--map",
                      "pca", "--map-out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_write_that_fails_after_training_keeps_the_vectors(tmp_path, capsys, monkeypatch):
    kept = tmp_path / "kept"
    monkeypatch.setattr(destination, "fallback_folder", lambda: kept)
    real_replace = os.replace

    def disk_full_at_the_destination(source, target):
        if Path(target).parent == tmp_path:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_replace(source, target)

    monkeypatch.setattr(destination.os, "replace", disk_full_at_the_destination)
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES * 40)
    out = tmp_path / "v.txt"
    code = workbench(["vectors", str(corpus), "--epochs", "1", "--min-count", "2",
                      "--out", str(out)])
    said = capsys.readouterr()
    assert code == 1 and "Traceback" not in said.err
    assert "No space left on device" in said.err and "went to" in said.err
    written = Path(said.out.split()[0])
    assert written.parent == kept and not out.exists()
    assert "king" in load_vectors(written, "word2vec-text").words
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_write_kept_replaces_in_one_step_and_keeps_the_mode(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("old")
    path.chmod(0o640)
    assert write_kept(lambda target: target.write_text("new"), path, "vectors") == (path, "")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o640


def test_write_kept_says_so_when_no_place_takes_the_result(tmp_path):
    def fail(target):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(UserFacingError, match="no fallback folder could take the vectors"):
        write_kept(fail, tmp_path / "v.txt", "vectors", [tmp_path / "a", tmp_path / "b"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]
    assert not any((tmp_path / "a").iterdir()) and not any((tmp_path / "b").iterdir())
