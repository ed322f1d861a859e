"""Loading corpora: files, folders, compression, encodings, and every kind of bad input."""

from __future__ import annotations

import bz2
import gzip
import os
import time
from pathlib import Path

import pytest

from workbench.core.corpus.loading import Corpus, load_corpus, load_corpus_job
from workbench.core.events import JobCancelled, JobFailed, JobFinished, Notice, Progress
from workbench.core.jobs import JobControl, UserFacingError, drive

VERSE = "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate.\n"
ACCENTED = "Le cœur a ses raisons que la raison ne connaît point.\nÉté, café, naïve, déjà.\n" * 20


def run(path, **options):
    events = list(drive(load_corpus_job(path, **options), JobControl()))
    return events, events[-1]


def failure(path, **options) -> str:
    _, last = run(path, **options)
    assert isinstance(last, JobFailed), last
    return last.message


def test_a_text_file_loads_with_windows_line_ends_made_plain(tmp_path):
    path = tmp_path / "sonnet.txt"
    path.write_bytes(VERSE.replace("\n", "\r\n").encode())
    events, last = run(path)
    corpus = last.result
    assert isinstance(corpus, Corpus) and corpus.name == "sonnet.txt"
    assert corpus.text == VERSE and corpus.documents == [("sonnet.txt", VERSE)]
    assert corpus.warnings == [] and corpus.encodings == {"sonnet.txt": "utf-8"}
    assert corpus.stats.lines == 2


@pytest.mark.slow
def test_progress_counts_bytes_up_to_the_file_size(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text(VERSE * 40_000)  # ~3 MB: several read chunks
    start = time.monotonic()
    events, last = run(path)
    elapsed = time.monotonic() - start
    reads = [e for e in events if isinstance(e, Progress) and e.message.startswith("Reading")]
    assert len(reads) >= 2  # the first chunk, and the end of the file
    # paced to about 30 a second, not one per chunk, so the status bar is not flooded
    progress = [e for e in events if isinstance(e, Progress)]
    assert len(progress) <= 4 * (2 + elapsed * 30)
    assert [e.done for e in reads] == sorted(e.done for e in reads)
    assert reads[-1].done == reads[-1].total == path.stat().st_size
    assert isinstance(last, JobFinished)


def test_loading_stops_within_a_chunk_when_cancelled(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text(VERSE * 40_000)
    control, seen = JobControl(), []
    for event in drive(load_corpus_job(path), control):
        seen.append(event)
        if isinstance(event, Progress):
            control.stop()
    assert isinstance(seen[-1], JobCancelled)
    assert sum(isinstance(e, Progress) for e in seen) == 1


def test_a_folder_loads_matching_files_recursively_and_lists_the_bad_ones(tmp_path):
    (tmp_path / "act1.txt").write_text("First act.\n")
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "act2.md").write_text("Second act.\n")
    (tmp_path / "scenes" / "act3.txt.gz").write_bytes(gzip.compress(b"Third act.\n"))
    (tmp_path / "picture.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR")
    (tmp_path / "blank.txt").write_text("  \n")
    (tmp_path / "table.csv").write_text("not,matched\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("hidden\n")
    events, last = run(tmp_path)
    corpus = last.result
    assert [n for n, _ in corpus.documents] == ["act1.txt", "scenes/act2.md",
                                                "scenes/act3.txt.gz"]
    skipped = dict(corpus.skipped)
    assert set(skipped) == {"picture.txt", "blank.txt"}
    assert "binary" in skipped["picture.txt"] and "empty" in skipped["blank.txt"]
    assert sum(isinstance(e, Notice) and e.text.startswith("Skipped") for e in events) == 2
    assert corpus.stats.documents == 3
    only_md = run(tmp_path, glob="*.md")[1].result
    assert [n for n, _ in only_md.documents] == ["scenes/act2.md"]


def test_gzip_and_bzip2_files_are_decompressed(tmp_path):
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(VERSE.encode()))
    (tmp_path / "b.txt.bz2").write_bytes(bz2.compress(VERSE.encode()))
    for name in ("a.txt.gz", "b.txt.bz2"):
        assert load_corpus(tmp_path / name).text == VERSE


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_byte_order_marks_are_honoured_without_a_warning(tmp_path, encoding):
    path = tmp_path / "marked.txt"
    data = ACCENTED.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    path.write_bytes(data)
    corpus = load_corpus(path)
    assert corpus.text == ACCENTED and corpus.warnings == []


def test_a_latin1_file_is_detected_and_the_guess_is_shown_as_a_warning(tmp_path):
    path = tmp_path / "pascal.txt"
    path.write_bytes(ACCENTED.replace("œ", "oe").encode("latin-1"))
    events, last = run(path)
    corpus = last.result
    assert corpus.text == ACCENTED.replace("œ", "oe")
    assert len(corpus.warnings) == 1 and "pascal.txt is not UTF-8" in corpus.warnings[0]
    assert "Encoding box" in corpus.warnings[0]
    assert any(isinstance(e, Notice) and e.text == corpus.warnings[0] for e in events)


def test_a_chosen_encoding_is_used_and_a_wrong_choice_is_reported(tmp_path):
    path = tmp_path / "pascal.txt"
    path.write_bytes(ACCENTED.replace("œ", "oe").encode("latin-1"))
    chosen = load_corpus(path, encoding="latin-1")
    assert chosen.text == ACCENTED.replace("œ", "oe")
    assert chosen.warnings == ["pascal.txt was decoded as iso8859-1, the encoding chosen in the "
                               "Encoding box (set it back to 'auto' for UTF-8 and detection)."]
    message = failure(path, encoding="utf-8")
    assert message.startswith("pascal.txt: is not valid utf-8") and "Encoding box" in message
    assert "Unknown encoding 'klingon'" in failure(path, encoding="klingon")


def test_bad_single_files_fail_with_a_message_naming_them(tmp_path):
    binary = tmp_path / "model.bin"
    binary.write_bytes(bytes(range(256)) * 10)
    assert failure(binary).startswith("model.bin: looks like a binary file")
    utf16 = tmp_path / "wide.txt"  # no byte-order mark: only a chosen encoding reads it
    utf16.write_bytes(VERSE.encode("utf-16-le"))
    assert "choose utf-16 as encoding" in failure(utf16)
    assert load_corpus(utf16, encoding="utf-16-le").text == VERSE
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert failure(empty) == "empty.txt: is empty. Choose a file that contains text."
    broken = tmp_path / "broken.txt.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert failure(broken).startswith("broken.txt.gz: is not a valid gz file")
    assert "does not exist" in failure(tmp_path / "nowhere.txt")


def test_an_unreadable_file_is_reported(tmp_path, monkeypatch):
    path = tmp_path / "secret.txt"
    path.write_text(VERSE)
    if os.geteuid() == 0:  # root reads any file: make opening it fail as it would for a user
        from workbench.core.corpus import limits

        real_open = limits.open_regular

        def refuse(opened):
            if Path(opened).name == "secret.txt":
                raise PermissionError(13, "Permission denied", str(opened))
            return real_open(opened)

        monkeypatch.setattr(limits, "open_regular", refuse)
    path.chmod(0)
    try:
        message = failure(path)
    finally:
        path.chmod(0o644)
    assert message.startswith("secret.txt: permission denied") and "permissions" in message


def test_folders_without_usable_text_fail_with_what_to_do(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n")
    message = failure(tmp_path)
    assert "has no files matching '*.txt *.md'" in message and "file filter" in message
    (tmp_path / "x.txt").write_bytes(b"\x00\x01\x02")
    (tmp_path / "y.txt").write_text("")
    message = failure(tmp_path)
    assert "None of the 2 matching files" in message and "x.txt" in message


def test_load_corpus_raises_user_facing_errors_outside_a_job(tmp_path):
    with pytest.raises(UserFacingError, match="does not exist"):
        load_corpus(tmp_path / "missing")
