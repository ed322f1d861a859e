"""Suite-wide fixtures: offscreen Qt, isolated settings, and a guard against leaked threads."""

from __future__ import annotations

import atexit
import faulthandler
import gc
import os
import shutil
import tempfile
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Runs a test trains go to a folder of this test session, not to the developer's own runs
# (tests that train without choosing a folder left dozens of "upos-small" runs there, which the
# window then listed and a screenshot's Training header showed).
if "WORKBENCH_RUNS_DIR" not in os.environ:
    os.environ["WORKBENCH_RUNS_DIR"] = tempfile.mkdtemp(prefix="workbench-test-runs-")
    atexit.register(shutil.rmtree, os.environ["WORKBENCH_RUNS_DIR"], ignore_errors=True)


# A test still running after this long has its threads' stacks written to a file of its
# worker process, and the controller prints them at the end of the run: pytest-timeout's own
# dump (at 600 s) goes to a worker's stderr, which pytest-xdist does not show, so a test that
# hung in CI left no trace of where.
SLOW_TEST_STACKS_S = float(os.environ.get("WORKBENCH_TEST_STACKS_AFTER_S", "240"))
_stack_file = []


def pytest_configure(config):
    if "WORKBENCH_TEST_STACKS" not in os.environ:  # the controller; workers inherit it
        os.environ["WORKBENCH_TEST_STACKS"] = tempfile.mkdtemp(prefix="workbench-stacks-")
        atexit.register(shutil.rmtree, os.environ["WORKBENCH_TEST_STACKS"], ignore_errors=True)


@pytest.fixture(autouse=True)
def _stacks_of_a_slow_test():
    if not _stack_file:  # one file per process, open for its life (faulthandler writes to it)
        folder = os.environ["WORKBENCH_TEST_STACKS"]
        _stack_file.append(open(os.path.join(folder, f"{os.getpid()}.txt"), "w"))  # noqa: SIM115
    faulthandler.dump_traceback_later(SLOW_TEST_STACKS_S, file=_stack_file[0])
    yield
    faulthandler.cancel_dump_traceback_later()


def pytest_terminal_summary(terminalreporter):
    if hasattr(terminalreporter.config, "workerinput"):
        return
    folder = os.environ.get("WORKBENCH_TEST_STACKS", "")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        with open(os.path.join(folder, name), errors="replace") as handle:
            text = handle.read(20_000)
        if text.strip():
            terminalreporter.section(f"stacks of a test past {SLOW_TEST_STACKS_S:g} s "
                                     f"(process {name[:-4]})")
            terminalreporter.write_line(text)


def pytest_collection_finish(session):
    """Freeze what the test modules' imports made (torch, Qt, gensim), as the window does."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_leaked_threads(request):
    """Fail any test that leaves a Python or Qt worker thread running."""
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [
        t for t in threading.enumerate()
        if t.ident not in before and t.is_alive() and not t.daemon
    ]
    for t in leaked:
        t.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    qt_running = []
    if "workbench.qt.job_runner" in __import__("sys").modules:
        from workbench.qt.job_runner import LIVE_THREADS

        qt_running = [t.objectName() for t in list(LIVE_THREADS) if _qt_thread_running(t)]
    # A window collects cycles on the GUI thread only (workbench/qt/gui_thread_gc.py); collect
    # each test's garbage here, on the main thread, so none of it is left for a collection
    # on the next test's worker threads. Only a test that made Qt objects needs the full
    # collection: it walks everything imported since the freeze, seconds a test on a 2-core
    # CI machine (53 s of 129 in tests/adversarial/test_small_inputs.py), and garbage without
    # Qt objects may be collected on any thread.
    if _made_qt_objects(request):
        gc.collect()
    else:
        gc.collect(1)
    # Nothing is frozen here: what a test leaves alive (a failed test's frames hold its window)
    # would, once frozen, become garbage out of reach of this collection and be collected
    # later on whatever thread allocates, Qt objects included (gui_thread_gc.py says why that
    # deadlocks). CI hung at stop 36, the first run with a freeze here.
    assert not still, f"test left Python threads running: {still}"
    assert not qt_running, f"test left job threads running: {qt_running}"


@pytest.fixture(autouse=True)
def _no_unanswerable_question(request, monkeypatch):
    """A modal question in an offscreen test can never be answered. A test that left a job
    running when pytest-qt closed its window hung in teardown on "… is running. Stop it and
    quit?" until its time limit ended the whole worker (an error, and 10 minutes lost). Unless
    the test answers for itself (its own monkeypatch comes later and wins), the answer is Yes,
    as a user closing the window would give."""
    if _made_qt_objects(request):
        from PySide6.QtWidgets import QMessageBox

        monkeypatch.setattr(QMessageBox, "question",
                            lambda *args, **kwargs: QMessageBox.StandardButton.Yes)
    yield


def _made_qt_objects(request) -> bool:
    path = str(request.node.path).replace("\\", "/")
    return ("/tests/qt/" in path or "/tests/e2e/" in path
            or bool({"qtbot", "qapp", "window"} & set(request.fixturenames)))


def _qt_thread_running(thread) -> bool:
    try:
        if thread.isRunning():  # a job may take seconds to end on a slow 2-core machine
            thread.wait(30_000)
        return thread.isRunning()
    except RuntimeError:  # the C++ object is already deleted: not running
        return False


@pytest.fixture
def settings(tmp_path):
    """A QSettings in a temporary INI file, so tests never touch the user's settings."""
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
