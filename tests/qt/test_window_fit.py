"""The window at the screens it is used on: at 1280 × 720, 1366 × 768 and 1920 × 1080, in every
perspective, each shown panel's main controls are on screen (not scrolled or pushed away) and
every plot shown keeps a readable height; presentation mode too; the window asks nothing above
the smallest of these screens."""

from __future__ import annotations

import contextlib

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QRect

from tests.qt.window_size import resize_window
from workbench.app.panels import panel_types
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.main_window import MainWindow
from workbench.qt.widgets.boxes import PLOT_MIN_HEIGHT

SIZES = [(1280, 720), (1366, 768), (1920, 1080)]
# the controls a student must reach without scrolling, by panel
MAIN_CONTROLS = {
    "corpus": ["tabs"],
    "architecture": ["picker", "stats"],
    "embeddings": ["tabs", "train_button"],
    "training": ["controls.start", "controls.pause", "controls.stop", "curves.graphics"],
    "gates": ["probe_bar.text", "probe_bar.probe_button", "layer_box"],
    "attention": ["probe_bar.text", "probe_bar.probe_button", "layer_box"],
    "gradients": ["probe_bar.text", "probe_bar.probe_button"],
    "nexttoken": ["probe_bar.text", "probe_bar.probe_button"],
    "generate": ["prompt", "generate_button", "stop_button"],
    "worked": ["picker"],
}


@pytest.fixture
def window(qtbot, settings):
    window = MainWindow(WorkbenchController(FakeBackend()), panel_types(), settings=settings)
    qtbot.addWidget(window)
    yield window
    window.zoom.actual_size()  # the application font is the whole test run's


def settle(qtbot, window, size):
    resize_window(window, *size)
    window.show()
    qtbot.waitExposed(window)


def settled(qtbot, check, timeout: int = 10_000) -> list[str]:
    """The problems `check()` finds once the window has laid itself out: docks, scroll areas
    and zoomed plots take turns of the event loop, more of them on a loaded machine (a fixed
    60 ms wait failed there once at 1920 × 1080), so `check` is polled until it finds none
    or `timeout` ms have passed; the problems of the last look are returned."""
    from pytestqt.exceptions import TimeoutError as WaitTimeout

    with contextlib.suppress(WaitTimeout):
        qtbot.waitUntil(lambda: not check(), timeout=timeout)
    return check()


def visible_rect(widget, window) -> QRect:
    """The part of `widget` on screen, in window coordinates: its rectangle cut by every
    ancestor's (a scroll area's viewport cuts away what is scrolled out of view)."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect &= QRect(parent.mapTo(window, QPoint(0, 0)), parent.size())
        parent = parent.parentWidget()
    return rect & window.rect()


def on_screen(widget, window) -> bool:
    """Shown and not clipped away: a button whole (most of it), a large view (tab widget,
    plots) at least its first 120 px."""
    if not widget.isVisible():
        return False
    seen = visible_rect(widget, window)
    return seen.height() >= min(0.8 * widget.height(), 120) and \
        seen.width() >= min(0.8 * widget.width(), 120)


def attribute(panel, path: str):
    for part in path.split("."):
        panel = getattr(panel, part)
    return panel


def shown_panels(window):
    """Panels in front in their dock area (a tabbed dock behind another is not shown)."""
    return [name for name, dock in window.docks.items()
            if dock.isVisible() and visible_rect(window.panels[name], window).height() > 0]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_perspective_fits_the_screen(qtbot, window, size):
    settle(qtbot, window, size)
    assert window.minimumSizeHint().width() <= 1280
    assert window.minimumSizeHint().height() <= 720
    window.panels["embeddings"].tabs.setCurrentIndex(0)  # the tab with its Train button
    problems = []
    for perspective in window.perspectives.available():
        window.perspectives.switch(perspective.name)
        problems += settled(qtbot, lambda p=perspective: fit_problems(window, p.name))
    assert problems == [], "\n".join(problems)


def fit_problems(window, perspective: str) -> list[str]:
    """What of `perspective` is off the screen or too low to read, now."""
    shown = shown_panels(window)
    if not shown:
        return [f"{perspective}: no panel shown"]
    found = []
    for name in shown:
        panel = window.panels[name]
        # "All panels" puts ten panels on one screen: each scrolls, none is squeezed
        controls = [] if perspective == "All panels" else MAIN_CONTROLS.get(name, [])
        for path in controls:
            if not on_screen(attribute(panel, path), window):
                found.append(f"{perspective}: {name}.{path} is not on screen")
        found += plot_problems(perspective, name, panel, window)
    return found


def plot_problems(perspective: str, name: str, panel, window, floor: float = 0.9) -> list[str]:
    """Every plot item shown is at least most of the readable height tall."""
    found = []
    for view in panel.findChildren(pg.GraphicsView):
        if not view.isVisible() or visible_rect(view, window).isEmpty():
            continue
        for item in view.scene().items():
            if isinstance(item, pg.PlotItem) and not isinstance(item, pg.ColorBarItem) \
                    and item.isVisible():  # a colour bar is a PlotItem too, beside its plot
                height = item.sceneBoundingRect().height()
                if height < floor * PLOT_MIN_HEIGHT:
                    found.append(f"{perspective}: a plot of {name} is {height:.0f} px tall")
    return found


def test_presentation_mode_at_the_commonest_laptop_still_fits(qtbot, window):
    settle(qtbot, window, (1366, 768))
    window.layout_manager.presentation.setChecked(True)
    assert window.zoom.factor == pytest.approx(1.6)

    def zoomed_problems(perspective: str) -> list[str]:
        found = []
        for name in shown_panels(window):
            panel = window.panels[name]
            for path in MAIN_CONTROLS.get(name, [])[:2]:  # the first controls of each panel
                if not attribute(panel, path).isVisible():
                    found.append(f"{perspective}: {name}.{path} is hidden")
            found += plot_problems(perspective, name, panel, window)
        return found
    problems = []
    for perspective in window.perspectives.available():
        window.perspectives.switch(perspective.name)
        # the plots are rescaled a moment after the font
        problems += settled(qtbot, lambda p=perspective.name: zoomed_problems(p))
    assert problems == [], "\n".join(problems)


def test_the_first_start_fills_the_screen_and_sizes_are_remembered(qtbot, settings):
    first = MainWindow(WorkbenchController(FakeBackend()), panel_types(), settings=settings)
    qtbot.addWidget(first)
    screen = first.screen().availableGeometry()
    assert first.geometry() == screen
    first.resize(screen.width() - 100, screen.height() - 80)  # the offscreen screen: 800 × 600
    first.perspectives.switch("Inspect")
    first.close()
    again = MainWindow(WorkbenchController(FakeBackend()), panel_types(), settings=settings)
    qtbot.addWidget(again)
    assert (again.width(), again.height()) == (screen.width() - 100, screen.height() - 80)
    assert again.perspectives.current == "Inspect"
    assert again.geometry().topLeft() != QPoint(-10000, -10000)


def test_presentation_mode_cuts_nothing_off_on_the_right(qtbot, window):
    """Zoomed text needs wider controls: the columns of controls widen with it (a fixed width
    cut spin boxes, the Stop button and the clamp's value in half) and the training plots
    keep the width their titles and ticks need, scrolling sideways (the third column was
    cut off and titles ran into each other)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QLineEdit, QPushButton

    settle(qtbot, window, (1366, 768))
    window.layout_manager.presentation.setChecked(True)

    def cut_controls(name: str) -> list[str]:
        found = []
        kinds = (QAbstractSpinBox, QComboBox, QLineEdit, QPushButton)
        for widget in (w for kind in kinds for w in window.panels[name].findChildren(kind)):
            seen = visible_rect(widget, window)
            if widget.isVisible() and not seen.isEmpty() and seen.width() < widget.width() - 1:
                label = widget.objectName() or getattr(widget, "text", lambda: "")()
                found.append(f"{name}: {type(widget).__name__} {label!r} shows "
                             f"{seen.width()} of {widget.width()} px")
        return found

    def cut_plots() -> list[str]:
        curves = window.panels["training"].curves
        need = curves.graphics.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
        found = [] if curves.graphics.width() >= need - 1 else [
            f"training: the curves are {curves.graphics.width()} px wide, need {need:.0f}"]
        return found + [f"training: the {key} plot is narrower than its title"
                        for key, plot in curves.plots.items()
                        if plot.geometry().width() < plot.titleLabel.minimumWidth()]
    cut = []
    for perspective, name in (("Generate", "generate"), ("Model & training", "training"),
                              ("Embeddings", "embeddings")):
        window.perspectives.switch(perspective)
        window.docks[name].raise_()
        # the plots are rescaled a moment after the font
        cut += settled(qtbot, lambda n=name: cut_controls(n) + (
            cut_plots() if n == "training" else []))
    assert cut == [], "\n".join(cut)


def test_dock_tabs_show_whole_names(qtbot, window):
    """Ten panels tabbed beside a lesson read "Gat…", "T…", "G…" at 1366 px, and "T…" for
    Training in presentation mode: the tabs keep their whole names and the bar scrolls (the
    Inspect perspective tabs eight inspectors together on this screen)."""
    from PySide6.QtWidgets import QTabBar

    settle(qtbot, window, (1366, 768))
    window.layout_manager.presentation.setChecked(True)
    window.perspectives.switch("Inspect")

    def tab_bars():
        return [bar for bar in window.findChildren(QTabBar)
                if bar.parent() is window and bar.isVisible() and bar.count() >= 2]
    def short_names() -> list[str]:
        bars = tab_bars()
        return [bar.tabText(i) for bar in bars for i in range(bar.count())
                if bar.tabRect(i).width() < bar.fontMetrics().horizontalAdvance(bar.tabText(i))
                ] if bars else ["no tab bar shown"]
    assert settled(qtbot, short_names) == []


@pytest.mark.parametrize("perspective", ["Generate", "Inspect"])
def test_following_a_run_leaves_the_chosen_perspective_usable(qtbot, window, perspective):
    """`workbench --perspective Generate --follow RUN` docked the Training panel below the
    Generate panel at 1366 × 768 and pushed its Generate button off the screen: the followed
    run's curves go on a tab behind the perspective's panels, whose controls stay on screen."""
    settle(qtbot, window, (1366, 768))
    window.perspectives.switch(perspective)
    window.show_followed_runs(chosen_perspective=True)
    qtbot.waitUntil(lambda: window.docks["training"].isVisible())

    def problems() -> list[str]:
        found = []
        for name in shown_panels(window):
            for path in MAIN_CONTROLS.get(name, []):
                if not on_screen(attribute(window.panels[name], path), window):
                    found.append(f"{name}.{path} is not on screen")
            found += plot_problems(perspective, name, window.panels[name], window)
        return found
    assert settled(qtbot, problems) == []
    main = window.docks[window.perspectives.named(perspective).main[0]]
    assert window.docks["training"] in window.tabifiedDockWidgets(main)  # a click away
    assert "training" not in shown_panels(window)
    window.docks["training"].raise_()
    qtbot.waitUntil(lambda: "training" in shown_panels(window))


def test_following_a_run_without_a_chosen_perspective_shows_its_curves(qtbot, window):
    settle(qtbot, window, (1366, 768))
    window.perspectives.switch("Generate")  # where the student left the window last time
    window.show_followed_runs(chosen_perspective=False)
    assert window.perspectives.current == "Model & training"
    qtbot.waitUntil(lambda: "training" in shown_panels(window))


def test_presentation_mode_gives_the_training_plots_the_width(qtbot, window):
    """In presentation mode at 1920 × 1080 Training sat beside Architecture: one and a half of
    three plot columns showed ("Perplexity (" cut, a sideways scroll bar) and the layer table
    was squeezed to "utput s". Zoomed, the window has the room of a narrow one: Training is
    tabbed with Architecture, the plots take as many columns as fit, none scrolls sideways;
    back at actual size the two sit side by side again."""
    settle(qtbot, window, (1920, 1080))
    window.perspectives.switch("Model & training")
    training, architecture = window.docks["training"], window.docks["architecture"]
    assert architecture not in window.tabifiedDockWidgets(training)  # side by side, wide
    curves = window.panels["training"].curves
    assert settled(qtbot, lambda: [] if curves.grid.columns >= 2 and not
                   curves.scroller.horizontalScrollBar().isVisible() else
                   [f"{curves.grid.columns} columns beside Architecture"]) == []
    beside = curves.grid.columns
    window.layout_manager.presentation.setChecked(True)

    def problems() -> list[str]:
        found = [] if architecture in window.tabifiedDockWidgets(training) else [
            "Architecture is still beside Training"]
        if curves.scroller.horizontalScrollBar().isVisible():
            found.append(f"the plots scroll sideways in {curves.grid.columns} columns")
        return found + [f"the {key} plot is narrower than its title"
                        for key, plot in curves.plots.items()
                        if plot.geometry().width() < plot.titleLabel.minimumWidth()]
    assert settled(qtbot, problems) == []
    assert curves.grid.columns >= 2
    window.layout_manager.presentation.setChecked(False)
    assert settled(qtbot, lambda: ["still tabbed"] if architecture in
                   window.tabifiedDockWidgets(training) else []) == []
    assert settled(qtbot, lambda: [] if curves.grid.columns == beside else
                   [f"{curves.grid.columns} columns at actual size, {beside} before"]) == []


def test_the_training_plots_wrap_to_the_width_they_have(qtbot, window):
    """A narrow Training panel shows fewer plot columns (more rows, scrolled down), never a
    plot narrower than its title."""
    settle(qtbot, window, (1366, 768))
    window.perspectives.switch("Model & training")
    window.docks["training"].raise_()
    curves = window.panels["training"].curves
    assert settled(qtbot, lambda: [] if curves.grid.columns >= 2 else ["one column"]) == []
    before = curves.grid.columns
    window.layout_manager.zoom.set_factor(2.0)
    assert settled(qtbot, lambda: [] if curves.grid.columns < before and not
                   curves.scroller.horizontalScrollBar().isVisible() else
                   [f"{curves.grid.columns} columns, or sideways"]) == []
    assert [key for key, plot in curves.plots.items()
            if plot.geometry().width() < plot.titleLabel.minimumWidth()] == []
    rows = -(-len(curves.plots) // curves.grid.columns)
    assert curves.graphics.minimumHeight() >= rows * PLOT_MIN_HEIGHT
