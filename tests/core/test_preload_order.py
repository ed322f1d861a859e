"""A job does not start while the window's preload is importing scipy: a job importing torch
at that moment made scipy's import fail ("partially initialized module 'torch'")."""

from __future__ import annotations

import threading

from workbench.core import preload
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, JobSpec, drive


def fresh_preload(monkeypatch) -> None:
    monkeypatch.setattr(preload, "_started", threading.Event())
    monkeypatch.setattr(preload, "_scipy_done", threading.Event())


def run_in_thread(ran: threading.Event) -> tuple[threading.Thread, list]:
    def job(control):
        ran.set()
        yield from ()

    events: list = []
    thread = threading.Thread(target=lambda: events.extend(
        drive(JobSpec("probe", job), JobControl())))
    thread.start()
    return thread, events


def test_a_job_waits_while_the_preload_imports_scipy_and_runs_after(monkeypatch):
    fresh_preload(monkeypatch)
    assert preload.begin() and not preload.begin()  # one preload per process
    ran = threading.Event()
    thread, events = run_in_thread(ran)
    assert not ran.wait(0.3)  # scipy still importing: the job has not begun
    preload.scipy_imported()
    thread.join(5)
    assert ran.is_set() and isinstance(events[-1], JobFinished)


def test_without_a_preload_a_job_runs_at_once(monkeypatch):
    fresh_preload(monkeypatch)  # the CLI and the tests: nothing preloads
    ran = threading.Event()
    thread, _ = run_in_thread(ran)
    assert ran.wait(5)
    thread.join(5)
