"""The activation functions of the course (seed 001, L156-198: sigmoid, tanh, ReLU, Leaky ReLU,
ELU) and their derivatives, at a point a student types and as curves over a range. The
derivatives are why the choice matters for training: σ′ is at most 1/4 (at 0), so a gradient
through many sigmoids shrinks; tanh′ is at most 1; ReLU′ is exactly 1 for x > 0 (the course's
slide 003:L830 says "> 1": it is not) and 0 below, where a unit stops learning."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from workbench.core.worked.records import Curve, Figure, Line, WorkedComputation, num

Pair = tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def functions(leak: float, alpha: float) -> dict[str, tuple[str, str, Pair]]:
    """name -> (formula, derivative's formula, (f, f′))."""
    return {
        "sigmoid": ("σ(x) = 1 / (1 + e^(−x))", "σ′(x) = σ(x) (1 − σ(x))",
                    (_sigmoid, lambda x: _sigmoid(x) * (1 - _sigmoid(x)))),
        "tanh": ("tanh(x)", "tanh′(x) = 1 − tanh²(x)",
                 (np.tanh, lambda x: 1 - np.tanh(x) ** 2)),
        "ReLU": ("max(0, x)", "1 for x > 0, 0 for x < 0",
                 (lambda x: np.maximum(0.0, x), lambda x: (x > 0).astype(float))),
        "Leaky ReLU": (f"max({leak:g}x, x)", f"1 for x > 0, {leak:g} for x < 0",
                       (lambda x: np.where(x > 0, x, leak * x),
                        lambda x: np.where(x > 0, 1.0, leak))),
        "ELU": (f"x if x ≥ 0, {alpha:g}(e^x − 1) if x < 0",
                f"1 for x ≥ 0, {alpha:g} e^x for x < 0",
                (lambda x: np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0))),
                 lambda x: np.where(x >= 0, 1.0, alpha * np.exp(np.minimum(x, 0))))),
    }


def activation_example(x: float, low: float = -5.0, high: float = 5.0, leak: float = 0.1,
                       alpha: float = 1.0) -> WorkedComputation:
    if not low < high:
        raise ValueError(f"The range needs from < to ({num(low)} ≥ {num(high)}).")
    if not 0 <= leak < 1:
        raise ValueError(f"The leak is a small slope in [0, 1), not {num(leak)}.")
    grid = np.linspace(low, high, 401)
    point = np.array([float(x)])
    lines, curves, values = [], [], {}
    for name, (formula, slope_formula, (f, slope)) in functions(leak, alpha).items():
        at, slope_at = float(f(point)[0]), float(slope(point)[0])
        values[name], values[name + "′"] = at, slope_at
        lines.append(Line(name, formula, f"at x = {num(x)}: {num(at)}", at))
        lines.append(Line(f"{name}: derivative", slope_formula,
                          f"at x = {num(x)}: {num(slope_at)}", slope_at))
        curves += [Curve(name, grid, f(grid), group=name),
                   Curve(f"{name}′", grid, slope(grid), dashed=True, colour_of=name,
                         group=name)]
    values["result"] = np.array([values[name] for name in functions(leak, alpha)])
    figure = Figure("Activation functions (solid) and their derivatives (dashed)", "x",
                    "f(x), f′(x)", tuple(curves))
    return WorkedComputation(
        f"Activation functions at x = {num(x)}", tuple(lines), values=values, figure=figure,
        note="σ′ is at most 0.25 (at x = 0): a gradient passing through many sigmoids "
             "shrinks. tanh′ is at most 1. ReLU′ is exactly 1 for x > 0 (not more) and 0 "
             "below, where the unit no longer learns; the leak and ELU keep a slope there.")
