"""Gate inspector fed known traces: the image holds the trace, clicks and slider work."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.qt.gallery.fake_traces import lstm_trace, snapshot
from workbench.qt.panels.gates import GatesPanel, activation_html
from workbench.qt.widgets import probe_bar


@pytest.fixture
def panel(make_panel):
    return make_panel(GatesPanel)


def publish(qtbot, panel, step):
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(step))


def test_heatmap_holds_the_chosen_gate_units_by_time(qtbot, panel):
    publish(qtbot, panel, 100)
    trace = lstm_trace(100)
    assert [panel.layer_box.itemText(i) for i in range(panel.layer_box.count())] == [
        "lstm0", "lstm1"]
    gates = [panel.gate_box.itemData(i) for i in range(panel.gate_box.count())]
    assert gates == ["i", "f", "g", "o", "c", "h"]
    assert np.allclose(panel.heatmap.image_values(), trace.layer("lstm0").values["i"].T)
    panel.layer_box.setCurrentText("lstm1")
    panel.gate_box.setCurrentIndex(gates.index("f"))
    assert np.allclose(panel.heatmap.image_values(), trace.layer("lstm1").values["f"].T)
    labels = [text for _, text in panel.heatmap.plot.getAxis("bottom")._tickLevels[0]]
    assert labels[:3] == ["T", "o", "·"]  # the probe's tokens, spaces made visible


def test_clicking_a_unit_shows_its_curve_and_coloured_text(qtbot, panel):
    publish(qtbot, panel, 100)
    panel.heatmap.clicked.emit(4, 2)
    x, y = panel.curve.getData()
    assert np.allclose(y, lstm_trace(100).layer("lstm0").values["i"][:, 4])
    assert panel.text_view.text().count("<span") == len(lstm_trace().token_text)
    # the Unrolled tab: the same unit's values, one cell per step (issue 33 figure 11)
    values = lstm_trace(100).layer("lstm0").values["i"][:, 4]
    shown = min(len(values), 12)
    assert np.allclose(panel.unrolled.values, values[:shown])


def test_the_text_is_coloured_on_the_selected_units_own_range(qtbot, panel):
    """Lesson 5, step 2: on the heatmap's scale (all units) a cell state unit that swings
    −1…2.5 coloured every token alike; on its own range its low and high tokens differ."""
    publish(qtbot, panel, 100)
    panel.gate_box.setCurrentIndex(panel.gate_box.findData("c"))
    values = panel.trace.layer("lstm0").values["c"]
    values[:, 3] = np.linspace(-0.01, 0.01, len(values))  # a quiet unit among louder ones
    values[0, 0] = 30.0
    panel._draw()
    panel.heatmap.clicked.emit(3, 0)
    text = panel.text_view.text().lower()
    assert "#440154" in text and "#fde725" in text  # viridis' two ends: dark and yellow
    title = panel.curve_plot.getPlotItem().titleLabel.text
    assert "from −0.01 (dark) to 0.01 (yellow)" in title


def test_saturation_slider_steps_through_snapshots(qtbot, panel):
    for step in (100, 200, 300):
        publish(qtbot, panel, step)
    assert panel.slider.maximum() == 2 and panel.slider.value() == 2
    panel.slider.setValue(0)
    x, y = panel.scatter.getData()
    expected = lstm_trace(100).extras["saturation/lstm0/i"]
    assert np.allclose(x, expected[:, 0]) and np.allclose(y, expected[:, 1])
    assert "step 100" in panel.slider_label.text()


def test_freeze_keeps_the_view_and_the_card_states_the_convention(qtbot, panel):
    publish(qtbot, panel, 100)
    panel.probe_bar.freeze.setChecked(True)
    panel.controller.set_snapshot(snapshot(500))
    qtbot.wait(50)
    assert int(panel.trace.extras["step"]) == 100
    assert "f<sub>t</sub>" in panel.card.text() and "i, f, g, o" in panel.card.text()


def test_activation_text_colours_low_and_high_differently():
    html = activation_html(["a", "b"], np.array([0.0, 1.0]), 0.0, 1.0)
    assert html.count("background:") == 2 and "#440154" in html.lower()


def test_snapshots_arriving_quickly_refresh_once_now_and_once_with_the_latest(qtbot, panel,
                                                                            monkeypatch):
    # a long interval, so a slow machine cannot let the burst through; then time "passes"
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 60.0)
    probes = panel.controller.backend.inspection.probes
    publish(qtbot, panel, 100)
    for step in (200, 300, 400):
        panel.controller.set_snapshot(snapshot(step))
    assert [p[0] for p in probes] == [100]  # throttled: training keeps the CPU
    timer = panel.probe_bar._auto_timer
    assert timer.isActive() and timer.remainingTime() > 50_000  # the rest of the interval
    timer.start(1)
    qtbot.waitUntil(lambda: int(panel.trace.extras["step"]) == 400, timeout=3000)
    assert [p[0] for p in probes] == [100, 400]


def test_a_new_run_starts_its_own_saturation_slider(qtbot, panel):
    for step in (100, 200):
        publish(qtbot, panel, step)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(100, run_dir="/runs/second"))
    # the second run's step 100 is shown, not dropped because the first run had a step 100
    assert panel.slider.maximum() == 0 and "step 100 (1/1)" in panel.slider_label.text()


@pytest.mark.slow
def test_the_first_probe_leaves_the_values_line_its_height(qtbot, panel):
    """The values line is in its probed style from the start: a line that grew at the first
    probe laid the window out again while training began."""
    panel.resize(900, 600)
    panel.show()
    qtbot.waitExposed(panel)
    before = panel.text_view.height()
    publish(qtbot, panel, 100)
    qtbot.wait(50)
    assert "<span" in panel.text_view.text()
    assert panel.text_view.height() == before


@pytest.mark.slow
def test_the_first_probe_of_a_transformer_leaves_the_panel_its_height(qtbot, panel):
    """No recurrent layers is said in the plot's title, not on a message line that would make
    the panel taller and lay it out again at the first probe of a training transformer."""
    before = panel.minimumSizeHint().height()
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snapshot(100, "transformer"))
    assert "no recurrent layers" in panel.heatmap.plot.titleLabel.text
    assert panel.minimumSizeHint().height() == before
