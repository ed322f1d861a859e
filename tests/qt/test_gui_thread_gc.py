"""Cycle collection runs on the GUI thread only (a collection on a job thread that freed Qt
objects deadlocked the window), and full collections skip the start-up heap (a full pass over
it froze the GUI ~200 ms)."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from workbench.qt.gui_thread_gc import GuiThreadCollector


class Node:
    """A garbage cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def collector(qtbot):
    collector = GuiThreadCollector(interval_ms=20)
    yield collector
    collector.stop()


@pytest.fixture
def collections():
    threads: list[str] = []

    def record(phase, info):
        if phase == "start":
            threads.append(threading.current_thread().name)

    gc.callbacks.append(record)
    yield threads
    gc.callbacks.remove(record)


def test_a_worker_allocating_cycles_never_collects_and_the_gui_thread_frees_them(
        qtbot, collector, collections):
    watched = []

    def allocate() -> None:  # far past the youngest generation's threshold of 700
        nodes = [Node() for _ in range(50_000)]
        watched.append(weakref.ref(nodes[0]))

    worker = threading.Thread(target=allocate, name="job-like worker")
    worker.start()
    worker.join()
    assert "job-like worker" not in collections, "a collection ran on the worker thread"
    qtbot.waitUntil(lambda: watched[0]() is None, timeout=5000)
    assert collections and set(collections) == {threading.main_thread().name}


def test_full_collections_skip_what_was_alive_at_start_and_stopping_hands_gc_back(qtbot):
    collector = GuiThreadCollector(interval_ms=20)
    try:
        assert not gc.isenabled()
        # Qt, pyqtgraph, numpy and the test modules are loaded: the objects tracked now are
        # frozen, so a full collection walks only what was made since.
        assert gc.get_freeze_count() > 10 * len(gc.get_objects())
    finally:
        collector.stop()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_window_hands_collection_back_when_it_closes(qtbot, settings):
    from workbench.app.window import build_window

    window = build_window(settings)
    qtbot.addWidget(window)
    assert not gc.isenabled()
    window.close()
    assert gc.isenabled()


def test_a_window_freed_without_closing_hands_collection_back(qtbot, settings):
    from workbench.app.window import build_window

    window = build_window(settings)
    assert not gc.isenabled()
    window.controller.shutdown()
    window.deleteLater()
    del window
    qtbot.waitUntil(gc.isenabled, timeout=5000)


def test_an_import_burst_is_frozen_without_walking_its_young_objects(qtbot, collections,
                                                                    monkeypatch):
    collector = GuiThreadCollector(interval_ms=60_000)
    try:
        before = gc.get_freeze_count()
        burst = [Node() for _ in range(60_000)]  # what a big import leaves in generation 0
        monkeypatch.setattr(collector, "_modules_at_freeze", -1_000)  # as if 1,000 imported
        collections.clear()
        collector.collect_due()
        assert collections == []  # no pass over the 60,000 young objects
        assert gc.get_freeze_count() >= before + 60_000
        small = [Node() for _ in range(100)]
        monkeypatch.setattr(collector, "_modules_at_freeze", -1_000)
        collector.collect_due()
        assert collections  # a small young generation is collected before the freeze
        del burst, small
    finally:
        collector.stop()
