"""Reading limits: the corpus size limit is checked while decompressing (a small .gz of a
large text stops early), only regular files are read (a FIFO would block forever), and UTF-16
chosen for text without a byte-order mark reads it."""

from __future__ import annotations

import gzip
import os
import threading

import pytest

from workbench.core.corpus import limits
from workbench.core.corpus.file_reading import CorpusTooLargeError
from workbench.core.corpus.loading import load_corpus, load_corpus_steps
from workbench.core.jobs import UserFacingError


def test_a_small_gz_of_a_large_text_stops_at_the_limit_while_decompressing(tmp_path):
    path = tmp_path / "bomb.txt.gz"
    with gzip.open(path, "wb") as out:
        for _ in range(6):
            out.write(b"a" * 2**20)  # 6 MB of text in a few kB
    assert path.stat().st_size < 100_000
    steps = load_corpus_steps(path, max_mb=2)
    read = 0
    with pytest.raises(CorpusTooLargeError) as stopped:
        for event in steps:
            read = max(read, getattr(event, "done", 0) or 0)
    assert "past its size limit" in str(stopped.value)
    assert "2 MB of text" in str(stopped.value) and "Largest corpus" in str(stopped.value)


def test_the_limit_counts_a_whole_folder_and_stops_it(tmp_path):
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("word " * 250_000)  # 1.25 MB each
    with pytest.raises(CorpusTooLargeError, match="c.txt takes the corpus past"):
        load_corpus(tmp_path, max_mb=3)
    assert len(load_corpus(tmp_path, max_mb=4).documents) == 3


def test_the_default_limit_is_a_share_of_memory_and_the_environment_overrides(monkeypatch):
    monkeypatch.delenv(limits.LIMIT_ENV, raising=False)
    assert limits.max_corpus_mb() == max(64, limits.total_memory_bytes() // 16 // 2**20)
    monkeypatch.setenv(limits.LIMIT_ENV, "5")
    assert limits.max_corpus_mb() == 5 and limits.max_corpus_mb(7) == 7


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_error_of(fifo)), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "loading a FIFO blocked"
    assert "named pipe (FIFO), not a regular file" in outcome[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused():
    assert "is a device, not a regular file" in _error_of("/dev/zero")


def _error_of(path) -> str:
    try:
        load_corpus(path)
    except UserFacingError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("order", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_without_a_byte_order_mark_read_when_chosen(tmp_path, order):
    text = "Ô Roméo, Roméo! wherefore art thou Romeo?\n"
    (tmp_path / "a.txt").write_bytes(text.encode(order))
    wide = order[:6]
    corpus = load_corpus(tmp_path / "a.txt", encoding=wide)
    assert corpus.text == text and corpus.encodings["a.txt"] == order


def test_utf16_chosen_for_a_folder_skips_its_8bit_files(tmp_path):
    (tmp_path / "wide.txt").write_bytes("some text\n".encode("utf-16-le"))
    (tmp_path / "plain.txt").write_text("plain text\n")
    corpus = load_corpus(tmp_path, encoding="utf-16")
    assert [name for name, _ in corpus.documents] == ["wide.txt"]
    assert corpus.skipped[0][0] == "plain.txt" and "no NUL bytes" in corpus.skipped[0][1]
