"""Gradient-through-time view: curves equal the trace's norms; runs overlay."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.snapshot import Snapshot
from workbench.qt.gallery.fake_traces import lstm_trace
from workbench.qt.panels.gradients import GradientsPanel


@pytest.fixture
def panel(make_panel):
    return make_panel(GradientsPanel)


def publish(qtbot, panel, step, run="lstm-run", arch="lstm", run_dir=""):
    snap = Snapshot({"arch": arch}, {}, {}, step=step, run_name=run, run_dir=run_dir)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=5000):
        panel.controller.set_snapshot(snap)


def test_curves_are_the_gradient_norms_per_layer(qtbot, panel):
    publish(qtbot, panel, 100)
    assert panel.controller.backend.inspection.probes[-1][2] is True  # asked for gradients
    curves = dict(panel.curves())
    trace = lstm_trace(100)
    assert np.allclose(curves["lstm-run @ 100: lstm0"], trace.extras["grad_norm/lstm0"])
    assert np.allclose(curves["lstm-run @ 100: lstm1"], trace.extras["grad_norm/lstm1"])
    assert len(panel.plot.getPlotItem().listDataItems()) == 2


def test_a_new_snapshot_replaces_its_run_and_other_runs_overlay(qtbot, panel):
    publish(qtbot, panel, 100)
    publish(qtbot, panel, 200)
    publish(qtbot, panel, 50, run="gru-run", arch="gru")
    names = [name for name, _ in panel.curves()]
    assert names == ["lstm-run @ 200: lstm0", "lstm-run @ 200: lstm1", "gru-run @ 50: lstm0",
                     "gru-run @ 50: lstm1"]
    plot = panel.plot.getPlotItem()
    legend = [panel.legend.getLabel(item).text for item in plot.listDataItems()]
    assert legend == names  # the legend says the step each curve is now from
    panel.clear_other_runs()
    assert [name for name, _ in panel.curves()][0].startswith("gru-run")
    assert [panel.legend.getLabel(item).text for item in plot.listDataItems()] == [
        "gru-run @ 50: lstm0", "gru-run @ 50: lstm1"]  # the other run's curves are gone


def test_two_runs_of_one_name_overlay_keyed_by_their_folders(qtbot, panel):
    """Two runs from the same preset share a name: each keeps its curve (the overlay keys
    runs by folder), and the legend tells them apart."""
    publish(qtbot, panel, 100, run="char-lstm", run_dir="/runs/20260101-120000-char-lstm")
    publish(qtbot, panel, 300, run="char-lstm", run_dir="/runs/20260102-090000-char-lstm")
    publish(qtbot, panel, 400, run="char-lstm", run_dir="/runs/20260101-120000-char-lstm")
    names = [name for name, _ in panel.curves()]
    assert names == ["char-lstm @ 400: lstm0", "char-lstm @ 400: lstm1",
                     "char-lstm [20260102-090000-char-lstm] @ 300: lstm0",
                     "char-lstm [20260102-090000-char-lstm] @ 300: lstm1"]


def test_normalising_divides_by_the_last_step(qtbot, panel):
    publish(qtbot, panel, 100)
    panel.normalise.setChecked(True)
    for _, y in panel.curves():
        assert np.isclose(y[-1], 1.0)
    header, columns = panel._data()
    assert header[0] == "t" and len(columns) == 3


def test_clear_other_runs_keeps_the_run_being_probed(qtbot, panel):
    """The live run was opened first and another run after it: clearing keeps the live one."""
    publish(qtbot, panel, 100, run="lstm-run", run_dir="/runs/a-lstm")
    publish(qtbot, panel, 50, run="gru-run", arch="gru", run_dir="/runs/b-gru")
    publish(qtbot, panel, 200, run="lstm-run", run_dir="/runs/a-lstm")
    panel.clear_other_runs()
    assert [name for name, _ in panel.curves()] == ["lstm-run @ 200: lstm0",
                                                    "lstm-run @ 200: lstm1"]


def test_the_overlay_keeps_the_latest_runs_and_their_colours(qtbot, panel):
    from workbench.qt.panels.gradients import MAX_RUNS

    def colour_of(run):
        item = next(i for i in panel.plot.getPlotItem().listDataItems()
                    if panel.legend.getLabel(i).text.startswith(f"{run} @"))
        return item.opts["pen"].color().name()

    publish(qtbot, panel, 10, run="lstm-live", run_dir="/runs/live")
    for n in range(MAX_RUNS):  # the live run is probed again between the others
        publish(qtbot, panel, n, run=f"lstm-old{n}", run_dir=f"/runs/old{n}")
        publish(qtbot, panel, 20 + n, run="lstm-live", run_dir="/runs/live")
    colours = {run: colour_of(run)
               for run in ("lstm-live", "lstm-old2", f"lstm-old{MAX_RUNS - 1}")}
    publish(qtbot, panel, 99, run="lstm-new", run_dir="/runs/new")
    runs = {name.split(" @")[0] for name, _ in panel.curves()}
    # lstm-old0 and -old1, probed longest ago, went; the live run stays though it began first
    assert runs == {"lstm-live", "lstm-new", *(f"lstm-old{n}" for n in range(2, MAX_RUNS))}
    assert len(panel.plot.getPlotItem().listDataItems()) == 2 * MAX_RUNS
    assert {run: colour_of(run) for run in colours} == colours  # nobody's colour moved
    assert len({colour_of(run) for run in runs}) == MAX_RUNS  # and no two runs share one


def test_a_transformers_curves_are_its_residual_streams_beside_a_recurrent_run(qtbot, panel):
    """A transformer decoder's curves are ‖∂L_T/∂x_t^(l)‖ of the stream entering each block,
    titled and labelled so, with the card that says why nothing fades going back; beside an
    LSTM run the plot says both are shown."""
    from workbench.qt.gallery.fake_traces import transformer_trace
    from workbench.qt.panels.gradients import MIXED_TITLE, STREAM_TITLE

    publish(qtbot, panel, 100, run="gpt2", arch="transformer", run_dir="/runs/gpt2")
    curves = dict(panel.curves())
    trace = transformer_trace(100)
    assert list(curves) == ["gpt2 (transformer) @ 100: block 0 input (embeddings)",
                            "gpt2 (transformer) @ 100: block 1 input"]
    assert np.allclose(curves["gpt2 (transformer) @ 100: block 1 input"],
                       trace.extras["grad_norm/block 1 input"])
    item = panel.plot.getPlotItem()
    assert item.titleLabel.text == STREAM_TITLE
    assert item.getAxis("left").labelText == "‖∂L_T/∂x_t^(l)‖"
    assert item.getAxis("bottom").labelText == "position t (probe token)"
    assert "no product of Jacobians" in panel.card.text()
    assert panel.message.text() == ""
    publish(qtbot, panel, 50, run="lstm-run", run_dir="/runs/lstm")
    assert len(panel.curves()) == 4 and item.titleLabel.text == MIXED_TITLE
    assert "∂h_t" in item.getAxis("left").labelText and "∂x_t" in item.getAxis("left").labelText
    assert "U<sup>T</sup>" in panel.card.text()  # the latest probe's card: the recurrent one


def test_a_transformer_encoder_is_refused_with_the_reason(panel):
    from dataclasses import replace

    from workbench.qt.gallery.fake_traces import transformer_trace
    from workbench.qt.panels.gradients import ENCODER_REFUSAL

    trace = transformer_trace(100)  # no next-token extras: an encoder's probe
    panel.show_trace(replace(trace, extras={k: v for k, v in trace.extras.items()
                                            if not k.startswith("grad_norm/")}))
    assert panel.message.text() == ENCODER_REFUSAL and not panel.curves()


def test_a_masked_lm_follows_its_blank_or_asks_for_one(panel, monkeypatch):
    """A masked LM's curves are titled for the loss of its own best guess at [MASK], on both
    sides of the blank; a probe without [MASK] is told to put one in."""
    from dataclasses import replace

    from workbench.qt.gallery.fake_traces import transformer_trace
    from workbench.qt.panels.gradients import MASKED_TITLE, NO_MASK

    snapshot = Snapshot({"arch": "masked_lm"}, {}, {}, run_name="bert",
                        task={"name": "masked_lm"})
    monkeypatch.setattr(type(panel), "snapshot", property(lambda self: snapshot))
    trace = transformer_trace(100)
    extras = {k: v for k, v in trace.extras.items() if k != "topk_ids"}  # an encoder's probe
    panel.show_trace(replace(trace, extras=extras))
    item = panel.plot.getPlotItem()
    assert item.titleLabel.text == MASKED_TITLE and len(panel.curves()) == 2
    assert "both sides of [MASK]" in item.getAxis("bottom").labelText
    panel.show_trace(replace(trace, extras={k: v for k, v in extras.items()
                                            if not k.startswith("grad_norm/")}))
    assert panel.message.text() == NO_MASK
