"""Curves per task and curves that show generalisation (issues 29 and 31): runs of different
tasks never share a plot (a tab per task), every title names its unit, colours are unique
among the runs shown, the best validation is starred and the test figure drawn beside it;
the training controls say what the run does at its end and forget "stopping" once stopped."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.events import EvalLogged, StepLogged, TestLogged
from workbench.qt.panels.training.controls import TrainingControls
from workbench.qt.panels.training.curves import CurvesView
from workbench.qt.panels.training.run_list import PALETTE, distinct_colours
from workbench.qt.panels.training.series import RunSeries


def run_of(key: str, task: str, colour: str = "#0072B2", loss: float = 2.0,
           val: tuple[float, ...] = ()) -> RunSeries:
    run = RunSeries(key, key, colour, task=task)
    for step in range(10, 110, 10):
        run.add(StepLogged(step, loss * 100 / (100 + step), 1e-3, 0.5, False, 64 * step, 5e4,
                           step / 10))
    for index, value in enumerate(val):
        step = 20 * (index + 1)
        run.add(EvalLogged(step, value, tokens_seen=64 * step, elapsed_s=step / 10))
    return run


@pytest.fixture
def view(qtbot):
    widget = CurvesView()
    qtbot.addWidget(widget)
    widget.resize(1000, 560)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.mark.slow
def test_runs_of_different_tasks_never_share_a_plot(view):
    lm = run_of("lm", "language_model")
    sentiment = run_of("sentiment", "classify", colour="#E69F00", loss=0.7)
    masked = run_of("mlm", "masked_lm", colour="#009E73", loss=8.3)  # ~4,000 perplexity
    view.set_runs([lm, sentiment, masked])
    tabs = view.task_tabs
    assert tabs.isVisible() and tabs.count() == 3
    assert tabs.tasks == ["language_model", "classify", "masked_lm"]
    assert set(view._items) == {"lm"}  # the first task's runs only
    assert view.plots["loss"].titleLabel.text.startswith("Loss (nats per token")
    tabs.setCurrentIndex(1)  # the user picks the classifier's tab
    assert set(view._items) == {"sentiment"}
    assert view.plots["loss"].titleLabel.text == "Loss (nats per sentence)"
    assert "perplexity" not in view.plots
    # the classifier's loss range is its own: not flattened by the masked LM's 8 nats
    low, high = view.plots["loss"].vb.viewRange()[1]
    assert high < 1.0
    sentiment.visible = False
    view.set_runs([lm, sentiment, masked])  # its tab goes; another task is shown
    assert tabs.count() == 2 and set(view._items) in ({"lm"}, {"mlm"})


@pytest.mark.slow
def test_every_tasks_tab_stays_in_sight_in_a_narrow_view(qtbot, view):
    """Five tasks' runs at the width 1280 px leaves the plots: no tab behind scroll arrows
    (the masked LM's was), each with its run count and its full name on hover."""
    tasks = ("language_model", "seq2seq", "classify", "tag", "masked_lm")
    view.set_runs([run_of(task, task, colour=colour) for task, colour in
                   zip(tasks, ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7"),
                       strict=True)])
    view.resize(760, 560)
    tabs = view.task_tabs
    qtbot.waitUntil(lambda: tabs.width() <= 760, timeout=5000)
    assert tabs.count() == 5
    assert tabs.tabRect(4).right() <= tabs.width()
    assert [tabs.tabText(i) for i in range(5)] == [
        "Next token (1)", "Seq2seq (1)", "Classify (1)", "Tag (1)", "Masked LM (1)"]
    assert tabs.tabToolTip(4) == "Masked-LM pretraining: 1 ticked run"
    # short names fit whole: the bar is wider than the tabs' full sizes
    assert sum(tabs.tabSizeHint(i).width() for i in range(5)) <= tabs.width()


@pytest.mark.slow
def test_one_task_shows_no_tabs_and_every_title_names_its_unit(view):
    view.set_runs([run_of("a", "language_model"), run_of("b", "language_model", "#E69F00")])
    assert not view.task_tabs.isVisible()
    titles = {key: plot.titleLabel.text for key, plot in view.plots.items()}
    assert titles["perplexity"] == "Perplexity (e^loss, per token)"
    assert "(" in titles["lr"] and "‖g‖" in titles["grad_norm"]
    assert "per second" in titles["tok_s"]
    view.set_unit("character")
    assert view.plots["loss"].titleLabel.text == "Loss (nats per character)"


def test_colours_are_made_unique_among_the_runs_shown():
    shown = [("a", PALETTE[0]), ("b", PALETTE[0]), ("c", PALETTE[1]), ("d", PALETTE[1])]
    changes = distinct_colours(shown)
    assert set(changes) == {"b", "d"}
    final = [changes.get(key, colour) for key, colour in shown]
    assert len(set(final)) == 4
    many = [(str(i), PALETTE[0]) for i in range(20)]  # beyond the palette: new hues
    final = [distinct_colours(many).get(key, colour) for key, colour in many]
    assert len(set(final)) == 20


def test_the_best_validation_is_starred_and_the_test_figure_drawn_beside_it(view):
    run = run_of("lm", "language_model", val=(2.0, 1.5, 1.7, 1.9))  # best at step 40
    run.add(TestLogged(100, 1.82, 40, "best", {"test_loss": 1.82}))
    view.set_runs([run])
    star = view._items["lm"][("loss", "best")]
    x, y = star.getData()
    assert list(x) == [40] and list(y) == [1.5]
    diamond = view._items["lm"][("loss", "test")]
    x, y = diamond.getData()
    assert list(x) == [40] and list(y) == pytest.approx([1.82])
    low, high = view.plots["loss"].vb.viewRange()[1]
    assert low <= 1.82 <= high  # the test figure is in view


def test_the_stopping_note_goes_when_the_run_has_stopped(qtbot):
    controls = TrainingControls()
    qtbot.addWidget(controls)
    controls.set_running(True)
    controls.show_progress(150, 300, "Step 150/300, loss 1.234", 30.0)
    assert controls.progress.format() == "step 150/300"
    assert controls.progress.value() == 500  # half of the whole run, also after a resume
    controls.set_running(True, stopping=True)
    assert controls.progress.format().startswith("stopping")
    controls.set_running(False)
    assert controls.progress.format() == "stopped"


def test_a_time_budget_shows_as_time_and_the_end_says_it_is_finishing(qtbot):
    controls = TrainingControls()
    qtbot.addWidget(controls)
    controls.set_running(True)
    controls.show_progress(240.0, 480.0, "Step 812, 4:00 of 8:00, loss 1.5", 240.0)
    assert controls.progress.format() == "step 812, 4:00 of 8:00"
    assert controls.progress.value() == 500
    controls.show_progress(1, 1, "Finishing: the last validation, checkpoint and test figure",
                           -1)
    assert controls.progress.format().startswith("finishing")
    controls.set_running(False)
    assert controls.progress.format() == "finished"
    assert np.isfinite(controls.progress.value())


def test_the_eta_of_a_resumed_run_counts_only_this_jobs_steps(qtbot, monkeypatch):
    """A run resumed at step 50 of 300 reports step 50, 100...: at 50 steps in 10 s the ETA is
    40 s, not the 20 s that counting the 50 steps before the resume as this job's gave."""
    from workbench.core.events import JobStarted, Progress
    from workbench.qt import job_runner
    from workbench.qt.job_runner import JobRunner

    runner = JobRunner()
    now = [100.0]
    monkeypatch.setattr(job_runner.time, "monotonic", lambda: now[0])
    seen = []
    runner.progress.connect(lambda done, total, message, eta: seen.append(eta))
    runner._on_event(JobStarted("Resuming"))
    now[0] = 105.0  # building the model, reading the corpus
    runner._on_event(Progress(60, 300, "Step 60/300"))
    now[0] = 115.0
    runner._on_event(Progress(110, 300, "Step 110/300"))
    assert seen[0] == -1.0  # nothing measured yet
    assert seen[1] == pytest.approx(10.0 * 190 / 50)


def test_next_sentence_accuracy_is_plotted_only_for_runs_that_log_it(view):
    """A masked LM without next-sentence prediction showed an empty "Next sentence told
    right" plot beside its curves; it appears when a shown run has logged the accuracy."""
    plain = run_of("mlm", "masked_lm", val=(7.5, 7.2))
    view.set_runs([plain])
    assert "nsp_accuracy" not in view.plots and "accuracy" in view.plots
    paired = run_of("nsp", "masked_lm", colour="#E69F00", val=(7.6,))
    paired.add(EvalLogged(40, 7.4, tokens_seen=2560, elapsed_s=4.0,
                          metrics={"val_loss": 7.4, "nsp_accuracy": 0.58}))
    view.set_runs([plain, paired])
    assert "nsp_accuracy" in view.plots
    paired.visible = False
    view.set_runs([plain, paired])
    assert "nsp_accuracy" not in view.plots
