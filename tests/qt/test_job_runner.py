"""The job thread: events re-emitted on the GUI thread in order, cancel, failures, one at a time."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from workbench.core.events import (
    JobCancelled,
    JobFailed,
    JobFinished,
    JobStarted,
    Progress,
    StepLogged,
)
from workbench.core.jobs import JobSpec
from workbench.qt import job_runner
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.job_runner import JobRunner


def steps_job(n, gate=None, ran=None):
    def job(control):
        for i in range(n):
            if gate is not None:
                gate.wait(5)
            if ran is not None:
                ran.append(i)
            yield StepLogged(i, 1.0, 0.1, 0.5, False, i * 10, 100.0, 0.1)
            yield Progress(i + 1, n, f"step {i + 1}")
        yield JobFinished(result="done")

    return JobSpec("steps", job)


def test_signal_order_is_exact_and_on_gui_thread(qtbot):
    runner = JobRunner()
    received, threads = [], []

    def record(event):
        received.append(event)
        threads.append(threading.current_thread())

    runner.event.connect(record)
    with qtbot.waitSignal(runner.busy_changed, timeout=5000, check_params_cb=lambda b: not b):
        assert runner.start(steps_job(2))
    kinds = [type(e).__name__ for e in received]
    assert kinds == [
        "JobStarted", "StepLogged", "Progress", "StepLogged", "Progress", "JobFinished",
    ]
    assert all(t is threading.main_thread() for t in threads)
    assert not runner.busy


def test_cancel_is_honoured_within_one_step(qtbot):
    runner = JobRunner()
    permits, ran, received = threading.Semaphore(0), [], []

    def job(control):
        for i in range(1000):
            permits.acquire(timeout=5)  # the test hands out steps one by one
            ran.append(i)
            yield Progress(i + 1, 1000)

    runner.event.connect(received.append)
    assert runner.start(JobSpec("metered", job))
    for _ in range(3):
        permits.release()
    qtbot.waitUntil(lambda: len(ran) == 3, timeout=5000)
    with qtbot.waitSignal(runner.busy_changed, timeout=5000):
        runner.cancel()
        for _ in range(50):
            permits.release()
    assert isinstance(received[-1], JobCancelled)
    assert len(ran) <= 4  # only the step already waiting when cancel was pressed ran after it


def test_exception_surfaces_as_message_and_app_stays_up(qtbot):
    controller = WorkbenchController(FakeBackend())

    def broken(control):
        yield Progress(0, 1)
        raise ValueError("the corpus has no text")

    with qtbot.waitSignal(controller.error, timeout=5000) as blocker:
        controller.run_job(JobSpec("broken", broken))
    assert blocker.args[0].startswith("Something went wrong that the app did not expect")
    assert "ValueError: the corpus has no text" in blocker.args[1]  # the Details
    qtbot.waitUntil(lambda: not controller.jobs.busy, timeout=5000)
    # the runner is usable again
    results = []
    with qtbot.waitSignal(controller.jobs.busy_changed, check_params_cb=lambda b: not b):
        controller.run_job(steps_job(1), on_result=results.append)
    assert results == ["done"]


def test_second_job_refused_while_one_runs(qtbot):
    controller = WorkbenchController(FakeBackend())
    gate = threading.Event()
    assert controller.run_job(steps_job(3, gate=gate))
    errors = []
    controller.error.connect(lambda m, d: errors.append(m))
    assert not controller.run_job(steps_job(1))
    assert errors and "'steps' is still running" in errors[0]
    with qtbot.waitSignal(controller.jobs.busy_changed, timeout=5000):
        gate.set()


def test_query_runs_beside_a_long_job(qtbot):
    controller = WorkbenchController(FakeBackend())
    gate = threading.Event()
    assert controller.run_job(steps_job(2, gate=gate))
    results = []
    with qtbot.waitSignal(controller.queries.busy_changed, check_params_cb=lambda b: not b):
        assert controller.run_query(steps_job(1), on_result=results.append)
    assert results == ["done"]
    with qtbot.waitSignal(controller.jobs.busy_changed, timeout=5000):
        gate.set()


def test_pause_holds_the_job_until_resumed(qtbot):
    runner = JobRunner()
    gate, ran = threading.Event(), []
    assert runner.start(steps_job(5, gate=gate, ran=ran))
    runner.pause()
    gate.set()
    qtbot.wait(200)
    assert len(ran) <= 1  # at most the step already in flight
    with qtbot.waitSignal(runner.busy_changed, timeout=5000):
        runner.resume()
    assert ran == [0, 1, 2, 3, 4]


def test_started_event_first(qtbot):
    runner = JobRunner()
    received = []
    runner.event.connect(received.append)
    with qtbot.waitSignal(runner.busy_changed, check_params_cb=lambda b: not b):
        runner.start(steps_job(0))
    assert isinstance(received[0], JobStarted) and isinstance(received[-1], JobFinished)
    assert not any(isinstance(e, JobFailed) for e in received)


def test_shutdown_never_waits_without_limit(qtbot):
    """A job stuck inside a step it cannot leave (as a gensim epoch is) is given up on after
    the deadline instead of freezing the closing window."""
    controller = WorkbenchController(FakeBackend())
    stuck, release = threading.Event(), threading.Event()

    def epoch(control):
        stuck.set()
        release.wait(30)  # ignores the control, as gensim's train() does
        yield JobFinished(result=None)

    assert controller.run_job(JobSpec("Training word2vec", epoch))
    assert stuck.wait(10)
    thread = controller.jobs._thread
    from workbench.qt.job_runner import abandoned_threads

    assert controller.shutdown(timeout_ms=200) is False
    assert not controller.jobs.busy and thread in abandoned_threads()
    release.set()  # let it end, so the suite's thread check stays clean
    assert thread.wait(10_000)
    assert abandoned_threads() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_a_job_thread_runs_nicer_than_the_window(qtbot):
    """The GUI thread outranks job threads for a core (a training and a probe thread on a
    2-core machine otherwise keep the window waiting for one)."""
    seen = []

    def job(control):
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        yield JobFinished(result=None)

    runner = JobRunner()
    with qtbot.waitSignal(runner.busy_changed, check_params_cb=lambda busy: not busy,
                          timeout=5000):
        runner.start(JobSpec("nice", job))
    window = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen == [min(19, window + job_runner.WORKER_NICE)]


def test_the_status_bar_keeps_its_height_when_a_job_starts(qtbot):
    """Its Pause and Cancel buttons are taller than the idle label: showing them grew the
    status bar, the whole window laid out again and every plot in it repainted."""
    from PySide6.QtWidgets import QMainWindow

    from workbench.qt.job_status import JobStatusWidget

    runner = JobRunner()
    window = QMainWindow()
    qtbot.addWidget(window)
    window.statusBar().addPermanentWidget(JobStatusWidget(runner))
    window.resize(800, 400)
    window.show()
    qtbot.waitExposed(window)
    idle = window.statusBar().height()
    runner.busy_changed.emit(True)
    qtbot.wait(50)
    assert window.statusBar().height() == idle
    runner.busy_changed.emit(False)
