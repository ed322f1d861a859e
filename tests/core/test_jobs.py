"""The job driver: event order, stop and pause between steps, failures turned into events."""

from __future__ import annotations

import threading

import pytest

from workbench.core.events import JobCancelled, JobFailed, JobFinished, JobStarted, Progress
from workbench.core.jobs import JobControl, JobSpec, UserFacingError, drive


def counting_job(n, seen=None):
    def job(control):
        for i in range(n):
            if seen is not None:
                seen.append(i)
            yield Progress(i + 1, n)
        yield JobFinished(result=n)

    return JobSpec("count", job)


def test_events_in_order_with_one_terminal_event():
    events = list(drive(counting_job(3), JobControl()))
    assert [type(e) for e in events] == [JobStarted, Progress, Progress, Progress, JobFinished]
    assert events[-1].result == 3


def test_generator_without_terminal_event_gets_job_finished():
    def job(control):
        yield Progress(1, 1)

    events = list(drive(JobSpec("plain", job), JobControl()))
    assert isinstance(events[-1], JobFinished) and events[-1].result is None


def test_stop_takes_effect_within_one_step_and_runs_finally():
    control = JobControl()
    seen, cleaned = [], []

    def job(control):
        try:
            for i in range(100):
                seen.append(i)
                yield Progress(i, 100)
        finally:
            cleaned.append(True)

    events = []
    for event in drive(JobSpec("long", job), control):
        events.append(event)
        if isinstance(event, Progress) and event.done == 2:
            control.stop()
    assert isinstance(events[-1], JobCancelled)
    assert seen == [0, 1, 2]  # no step ran after the stop
    assert cleaned == [True]


def test_pause_blocks_between_steps_until_resume():
    control = JobControl()
    seen = []
    gen = drive(counting_job(5, seen), control)
    next(gen)  # JobStarted
    next(gen)  # first Progress
    control.pause()
    result = []
    worker = threading.Thread(target=lambda: result.extend(gen))
    worker.start()
    worker.join(timeout=0.3)
    assert worker.is_alive() and seen == [0]  # paused: no further step ran
    control.resume()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert seen == [0, 1, 2, 3, 4] and isinstance(result[-1], JobFinished)


def test_exception_becomes_readable_job_failed():
    def job(control):
        yield Progress(0, 1)
        raise UserFacingError("The file corpus.bin is binary. Choose a text file.")

    events = list(drive(JobSpec("bad", job), JobControl()))
    assert isinstance(events[-1], JobFailed)
    assert events[-1].message == "The file corpus.bin is binary. Choose a text file."
    assert "Traceback" in events[-1].detail


def test_unexpected_exception_is_a_written_message_with_the_type_in_the_details():
    def job(control):
        raise ZeroDivisionError("division by zero")
        yield  # pragma: no cover

    events = list(drive(JobSpec("Counting words", job), JobControl()))
    failed = events[-1]
    assert failed.message.startswith("Something went wrong that the app did not expect while "
                                     "counting words. Try again")
    assert "ZeroDivisionError" not in failed.message
    assert "ZeroDivisionError: division by zero" in failed.detail
    assert failed.error_type == "ZeroDivisionError"


@pytest.mark.parametrize("error, expected", [
    (OSError(28, "No space left on device", "/runs/a/metrics.jsonl"), "The disk is full while "
     "saving: a file could not be written (/runs/a/metrics.jsonl). Free some space"),
    (OSError(30, "Read-only file system"), "The folder is on a read-only disk while saving"),
    (PermissionError(13, "Permission denied", "/x"), "Permission denied while saving (/x)."),
    (MemoryError(), "The computer ran out of memory while saving. Close other programs"),
])
def test_disk_full_read_only_and_memory_errors_say_what_to_do(error, expected):
    def job(control):
        raise error
        yield  # pragma: no cover

    failed = list(drive(JobSpec("Saving", job), JobControl()))[-1]
    assert failed.message.startswith(expected)
    assert "Errno" not in failed.message and "Error" not in failed.message


def test_check_inside_a_long_inner_loop_cancels():
    control = JobControl()
    inner = []

    def job(control):
        yield Progress(0, 1)
        for i in range(1000):
            if i == 5:
                control.stop()
            control.check()
            inner.append(i)

    events = list(drive(JobSpec("inner", job), control))
    assert isinstance(events[-1], JobCancelled)
    assert inner == [0, 1, 2, 3, 4]
