"""The controller's query queue: one query at a time beside the long job, in the order asked,
the newest request of each caller winning, none refused."""

from __future__ import annotations

import threading

from workbench.core.events import JobFinished, TokenGenerated
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend


def answering(value, gate: threading.Event | None = None, started=None) -> JobSpec:
    def job(control):
        if started is not None:
            started.set()
        if gate is not None:
            while not gate.wait(0.01):
                control.check()  # a long query still stops when cancelled
        yield TokenGenerated(0, 1, str(value), 0.5, 1.0, 0, ())
        yield JobFinished(result=value)
    return JobSpec(f"answer {value}", job)


def idle(qtbot, controller) -> None:
    qtbot.waitUntil(lambda: not controller.query_queue.busy, timeout=10_000)


def test_a_callers_newer_request_replaces_its_waiting_one_and_order_is_kept(qtbot):
    controller = WorkbenchController(FakeBackend())
    gate, got = threading.Event(), []
    controller.run_query(answering("blocker", gate), on_result=got.append, caller="probe")
    for value in ("a1", "a2", "a3"):  # a panel asking three times while the thread is busy
        assert controller.run_query(answering(value), on_result=got.append, caller="a")
    controller.run_query(answering("b"), on_result=got.append, caller="b")
    assert controller.query_queue.state("a") == "waiting"
    assert controller.last_error == ""  # nothing refused with "busy, try later"
    gate.set()
    idle(qtbot, controller)
    assert got == ["blocker", "a3", "b"]  # a3 kept a1's place in the line
    controller.shutdown()


def test_a_newer_request_cancels_the_same_callers_running_one(qtbot):
    controller = WorkbenchController(FakeBackend())
    gate, started, got, events = threading.Event(), threading.Event(), [], []
    controller.run_query(answering("old", gate, started), on_result=got.append,
                         on_event=events.append, caller="summary")
    assert started.wait(10)
    controller.run_query(answering("new"), on_result=got.append, on_event=events.append,
                         caller="summary")
    idle(qtbot, controller)
    assert got == ["new"]  # the stale answer never reaches the panel
    assert [e.text for e in events] == ["new"]
    controller.shutdown()


def test_cancel_drops_a_waiting_request_and_failures_go_to_on_error(qtbot):
    controller = WorkbenchController(FakeBackend())
    gate, got, errors = threading.Event(), [], []
    controller.run_query(answering("first", gate), on_result=got.append, caller="x")
    controller.run_query(answering("second"), on_result=got.append, caller="y")
    controller.query_queue.cancel("y")
    assert controller.query_queue.state("y") == ""

    def broken(control):
        raise UserFacingError("no such word")  # a failure the user is told as it is
        yield
    controller.run_query(JobSpec("broken", broken), on_error=errors.append, caller="z")
    gate.set()
    idle(qtbot, controller)
    assert got == ["first"]
    assert errors and "no such word" in errors[0].message
    assert controller.last_error == ""  # the caller with on_error says it itself
    controller.run_query(JobSpec("broken", broken))
    idle(qtbot, controller)
    assert "no such word" in controller.last_error  # without on_error: the window says it
    controller.shutdown()
