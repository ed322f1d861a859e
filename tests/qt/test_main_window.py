"""The window shell: docks from the panel list, menus with shortcuts, layout and recent files
remembered in QSettings, job status in the status bar, errors shown without stopping the app."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox

from workbench.core.events import Progress
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_data import FakeCorpus
from workbench.qt.main_window import MainWindow
from workbench.qt.panel import Panel


class EchoPanel(Panel):
    name = "echo"
    title = "Echo"
    area = "left"

    def __init__(self, controller, parent=None):
        super().__init__(controller, parent)
        self.label = QLabel("nothing yet", self)
        controller.corpus_changed.connect(lambda corpus: self.label.setText(corpus.name))


class OtherPanel(Panel):
    name = "other"
    title = "Other"
    area = "left"


def make_window(settings, gate=None):
    controller = WorkbenchController(FakeBackend(corpus=FakeCorpus(gate)))
    return MainWindow(controller, [EchoPanel, OtherPanel], settings=settings)


def test_panels_become_docks_with_view_toggles(qtbot, settings):
    window = make_window(settings)
    qtbot.addWidget(window)
    assert set(window.docks) == {"echo", "other"}
    titles = [a.text() for a in window.view_menu.actions()]
    assert "Echo" in titles and "Other" in titles


def test_standard_shortcuts_exist(qtbot, settings):
    window = make_window(settings)
    qtbot.addWidget(window)
    shortcuts = {
        a.text(): a.shortcut().toString()
        for menu in window.menuBar().findChildren(type(window.view_menu))
        for a in menu.actions()
    }
    assert shortcuts["&Open corpus file…"] == "Ctrl+O"
    assert shortcuts["Open corpus &folder…"] == "Ctrl+Shift+O"
    assert shortcuts["&Quit"] == "Ctrl+Q"
    assert shortcuts["Open &model…"] == "Ctrl+Alt+O"


def test_file_open_model_makes_a_checkpoint_the_sessions_model(qtbot, settings):
    """File ▸ Open model (and `workbench --model`) loads off the GUI thread; the model then
    is every inspector's and console's; a path that is not a checkpoint says why."""
    window = make_window(settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.controller.snapshot_changed, timeout=10_000):
        assert window.open_model("/models/char-lstm")
    assert window.controller.snapshot.step == 999

    class Refusing(type(window.controller.backend.inspection)):
        def load_checkpoint_job(self, path):
            raise UserFacingError(f"{path}: no such checkpoint")

    errors = []
    window.controller.error.connect(lambda message, _detail: errors.append(message))
    window.controller.backend.inspection = Refusing()
    assert not window.open_model("/nowhere")
    assert errors and "/nowhere" in errors[0]
    assert window.controller.snapshot.step == 999  # the model shown stays


def test_open_corpus_runs_job_updates_panels_and_recent_files(qtbot, settings):
    window = make_window(settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=5000):
        assert window.open_corpus("/data/a.txt")
    assert window.panels["echo"].label.text() == "/data/a.txt"
    window.open_corpus("/data/b.txt")
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=5000)
    assert window.recent.paths() == ["/data/b.txt", "/data/a.txt"]
    # a new window with the same settings remembers them
    again = make_window(settings)
    qtbot.addWidget(again)
    assert again.recent.paths() == ["/data/b.txt", "/data/a.txt"]


def test_layout_is_remembered_and_reset_after_a_floating_panel(qtbot, settings):
    """A floated panel is floating again after a restart, and Reset layout docks it. Reset
    layout right after such a restored layout segfaulted in QMainWindow.removeDockWidget every
    time in a new process (float a panel, quit, start, reset), offscreen and under X."""
    window = make_window(settings)
    qtbot.addWidget(window)
    window.show()
    window.docks["other"].setFloating(True)
    window.close()
    again = make_window(settings)
    qtbot.addWidget(again)
    again.show()
    assert again.docks["other"].isFloating()
    again.reset_layout()  # at once: the hardest case
    assert not again.docks["other"].isFloating()
    again.reset_layout()
    assert all(not dock.isFloating() and not dock.isHidden() for dock in again.docks.values())


def test_status_bar_shows_progress_and_cancel_stops_job(qtbot, settings):
    gate = threading.Event()
    window = make_window(settings, gate=gate)
    qtbot.addWidget(window)
    window.show()
    status = window.job_status
    assert status.label.text() == "Ready" and not status.cancel_button.isVisible()
    window.open_corpus("/data/slow.txt")
    assert status.cancel_button.isVisible()
    assert status.label.text().startswith("Loading /data/slow.txt")
    gate.set()
    with qtbot.waitSignal(window.controller.jobs.busy_changed, timeout=5000):
        status.cancel_button.click()
    assert status.label.text() == "Ready"
    assert window.controller.corpus is None or window.controller.corpus.name.endswith("slow.txt")


@pytest.mark.parametrize("style", ["Fusion", "Windows"])
def test_one_rule_between_the_corpus_and_the_job_state(qtbot, settings, style):
    """Styles that frame each status-bar item (Windows) drew a frame's edges around the corpus
    label and around the rule itself: several lines where one rule was meant. Between the
    corpus name and the job state there is one line, in every style."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QStyleFactory, QWidget

    window = make_window(settings)
    qtbot.addWidget(window)
    window.resize(900, 600)
    bar = window.statusBar()
    chosen = QStyleFactory.create(style)
    for widget in (bar, *bar.findChildren(QWidget)):
        widget.setStyle(chosen)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    image = bar.grab().toImage()
    corpus, state = window.corpus_label, window.job_status.label
    left = corpus.mapTo(bar, QPoint(corpus.width(), 0)).x()
    right = state.mapTo(bar, QPoint(0, 0)).x()
    top = corpus.mapTo(bar, QPoint(0, 0)).y() + 3
    rows = range(top, top + corpus.height() - 6)
    # a line is a column that differs from the bar's background all the way down the label
    background = image.pixelColor(left, 1).lightness()
    lines = [x for x in range(left, right)
             if all(abs(image.pixelColor(x, y).lightness() - background) > 12 for y in rows)]
    runs = [x for x in lines if x - 1 not in lines]  # adjacent columns draw one line
    assert len(runs) == 1, lines


def test_job_error_shows_message_and_window_stays_usable(qtbot, settings):
    window = make_window(settings)
    qtbot.addWidget(window)

    def broken(control):
        yield Progress(0, 1)
        raise OSError(28, "No space left on device")

    with qtbot.waitSignal(window.controller.error, timeout=5000):
        window.controller.run_job(JobSpec("broken", broken))
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=5000)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert any(b.text().startswith("The disk is full while broken") for b in boxes)
    assert all("OSError" not in b.text() and "OSError" in b.detailedText() for b in boxes)
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=5000):
        window.open_corpus("/data/ok.txt")
