"""Pointing at a control: found by object name or attribute, brought into view through tabs
and a collapsed Advanced box, framed while it is visible and no longer."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QMainWindow, QTabWidget, QVBoxLayout, QWidget

from workbench.core.config.models import TransformerConfig
from workbench.qt.widgets import spotlight
from workbench.qt.widgets.config_form import ConfigForm
from workbench.qt.widgets.spotlight import Spotlight, find_control, reveal


def make_window(qtbot):
    window = QMainWindow()
    panel = QWidget()
    panel.tabs = QTabWidget()
    panel.first = QLineEdit("first")
    panel.form = ConfigForm(TransformerConfig)
    panel.tabs.addTab(panel.first, "First")
    panel.tabs.addTab(panel.form, "Form")
    QVBoxLayout(panel).addWidget(panel.tabs)
    window.setCentralWidget(panel)
    qtbot.addWidget(window)
    window.resize(600, 500)
    window.show()
    return window, panel


def test_a_control_on_another_tab_in_a_collapsed_box_is_found_and_shown(qtbot):
    window, panel = make_window(qtbot)
    field = find_control(panel, "field-causal_mask")  # an advanced field, on the second tab
    assert field is panel.form.editors["causal_mask"] and not field.isVisible()
    reveal(field)
    assert panel.tabs.currentIndex() == 1 and panel.form.advanced.isChecked()
    qtbot.waitUntil(field.isVisible)
    assert find_control(panel, "first") is panel.first  # an attribute path works too
    assert find_control(panel, "no-such-control") is None


def test_the_frame_blinks_stays_then_goes_and_leaves_a_hidden_control(qtbot, monkeypatch):
    monkeypatch.setattr(spotlight, "BLINK_MS", 10)
    monkeypatch.setattr(spotlight, "STEADY_MS", 1500)  # wide enough to be seen under load
    window, panel = make_window(qtbot)
    light = Spotlight(window)
    light.show_on(panel.first)
    qtbot.waitUntil(lambda: light.blinks == 0 and light.frame.isVisible(), timeout=10000)
    corner = panel.first.mapTo(window, panel.first.rect().topLeft())
    assert light.frame.geometry().topLeft().x() == corner.x() - 4
    qtbot.waitUntil(lambda: not light.frame.isVisible(), timeout=10000)  # the steady time ends
    light.show_on(panel.first)
    panel.tabs.setCurrentIndex(1)  # the student looks elsewhere: the frame goes at once
    qtbot.waitUntil(lambda: not light.frame.isVisible() and not light.timer.isActive(),
                    timeout=3000)


def test_the_frame_goes_round_a_heatmap_not_only_round_its_buttons(qtbot):
    """A heatmap's plot fills it: the frame must still go round the whole control (it went
    round the export buttons only, the part of the widget its children leave uncovered)."""
    from workbench.qt.widgets.heatmap import Heatmap

    window, panel = make_window(qtbot)
    panel.heatmap = Heatmap("α", "key", "query")
    panel.tabs.addTab(panel.heatmap, "Heatmap")
    panel.tabs.setCurrentIndex(2)
    qtbot.waitUntil(panel.heatmap.isVisible)
    light = Spotlight(window)
    light.show_on(panel.heatmap)
    top_left = panel.heatmap.mapTo(window, panel.heatmap.rect().topLeft())
    assert light.frame.geometry().top() == top_left.y() - 4
    assert light.frame.geometry().height() == panel.heatmap.height() + 8


def test_a_control_deleted_while_framed_takes_the_frame_away_without_an_error(qtbot,
                                                                               monkeypatch):
    """A form rebuilt after a lesson step (another model) deletes the control the frame
    follows; the next blink hides the frame instead of raising inside the event loop."""
    monkeypatch.setattr(spotlight, "BLINK_MS", 20)
    window, panel = make_window(qtbot)
    light = Spotlight(window)
    light.timer.setInterval(20)
    light.show_on(panel.first)
    assert light.frame.isVisible()
    panel.tabs.removeTab(0)
    panel.first.deleteLater()
    qtbot.waitUntil(lambda: not light.frame.isVisible(), timeout=2000)
    assert not light.timer.isActive()
