"""Which plots the curves view draws: each task's curves (declared by its config,
core.config.tasks.Curve) and result plots, then the training plots every run has."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.core.config.tasks import ResultPlot, curves_of, result_plots_of


@dataclass(frozen=True)
class PlotSpec:
    """One plot: its key ("loss" for the loss), the training view drawn as a line (or None),
    the validation metric drawn as dots (or None), its title, whether "Log y" applies, and a
    factor for the values (100 for a share shown in percent)."""

    key: str
    train: str | None
    val: str | None
    title: str
    log_ok: bool = True
    scale: float = 1.0
    result: ResultPlot | None = None  # a structured result, drawn against its own x


# every title names its unit (issue 31): a rate is a step size, a norm is the L2 norm of all
# gradients, a throughput counts the task's tokens
TRAINING_PLOTS = (PlotSpec("lr", "lr", None, "Learning rate η (step size)", log_ok=False),
                  PlotSpec("grad_norm", "grad_norm", None,
                           "Gradient norm ‖g‖₂ before clipping"),
                  PlotSpec("clip_rate", "clip_rate", None, "Steps clipped (%)", log_ok=False,
                           scale=100.0),
                  PlotSpec("tok_s", "tok_s", None, "Throughput (tokens per second)"))


def plot_specs(tasks: list[str], logged: frozenset[str] = frozenset()
               ) -> tuple[PlotSpec, ...]:
    """The task curves of `tasks` (each once, in order; an optional one only when its metric
    is in `logged`, what the shown runs logged), the tasks' result plots, then the training
    plots (learning rate, gradient norm, tokens per second). The curves view asks for one task
    at a time: runs of different tasks never share a plot."""
    specs: dict[str, PlotSpec] = {}
    results: dict[str, PlotSpec] = {}
    for task in dict.fromkeys(tasks):
        for curve in curves_of(task):
            if curve.optional and curve.metric not in logged:
                continue
            key = curve.train or curve.metric
            percent = curve.unit == "percent"
            specs.setdefault(key, PlotSpec(key, curve.train, curve.metric,
                                           curve.title + (" (%)" if percent else ""),
                                           curve.log_ok, 100.0 if percent else 1.0))
        for plot in result_plots_of(task):
            percent = plot.unit == "percent"
            results.setdefault(plot.key, PlotSpec(
                plot.key, None, None, plot.title + (" (%)" if percent else ""), False,
                100.0 if percent else 1.0, plot))
    return tuple(specs.values()) + tuple(results.values()) + TRAINING_PLOTS


def logged_metrics(runs, task: str) -> frozenset[str]:
    """The validation metrics that the shown runs of `task` have a number for."""
    return frozenset(name for run in runs if run.visible and run.task == task and run.val.size
                     for name in run.val.names if np.isfinite(run.val[name]).any())
