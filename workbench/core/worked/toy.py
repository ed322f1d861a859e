"""The course's small computations, for numbers a student types: softmax, an embedding lookup,
LayerNorm, sinusoidal positions, an attention matrix, self-attention from Q, K and V, and the
word2vec window. Each returns a `WorkedComputation` whose `values["result"]` is the answer."""

from __future__ import annotations

import re

import numpy as np

from workbench.core.worked.records import (
    Curve,
    Figure,
    Line,
    WorkedComputation,
    matrix,
    num,
    products,
    softmax,
    vec,
)


def softmax_example(z: np.ndarray, temperature: float = 1.0) -> WorkedComputation:
    scaled = z / temperature
    e = np.exp(scaled - scaled.max())
    p = e / e.sum()
    hard = (np.arange(len(z)) == int(np.argmax(z))).astype(float)
    lines = [Line("logits", "z", vec(z), z)]
    if temperature != 1.0:
        lines.append(Line("temperature", f"z / T, T = {num(temperature, 2)}", vec(scaled),
                          scaled))
    lines += [Line("exponentials", "exp(z_i − max z)  (subtracting the max changes nothing)",
                   vec(e), e),
              Line("normaliser", "Σ_j exp(z_j − max z)", num(e.sum()), float(e.sum())),
              Line("softmax", "p_i = exp(z_i) / Σ_j exp(z_j)", vec(p), p),
              Line("argmax (the hard version)", "1 at the largest z_i, 0 elsewhere",
                   vec(hard, 0), hard)]
    at = np.arange(len(z), dtype=float)
    figure = Figure(f"softmax (T = {num(temperature, 2)}) against argmax", "i (which logit)",
                    "weight", (Curve("softmax p_i", at, p, bars=True),
                               Curve("argmax (one-hot)", at, hard, bars=True)))
    return WorkedComputation("softmax", tuple(lines), values={"result": p, "argmax": hard},
                             figure=figure)


def lookup_example(m: np.ndarray, x: np.ndarray) -> WorkedComputation:
    """e = M x: with a one-hot x, the column of M at x's 1."""
    if m.shape[1] != len(x):
        raise ValueError(f"M has {m.shape[1]} columns but x has {len(x)} values: they must "
                         "match for M x.")
    e = m @ x
    one_hot = np.count_nonzero(x) == 1 and float(x.max()) == 1.0
    lines = [Line("embedding matrix", f"M ({m.shape[0]}×{m.shape[1]})", matrix(m), m),
             Line("input", "x" + (" (one-hot)" if one_hot else ""), vec(x), x)]
    for row in range(min(len(e), 4)):
        lines.append(Line(f"row {row + 1}", f"e_{row + 1} = Σ_j M_{row + 1}j x_j",
                          f"{products(m[row], x)} = {num(e[row], 8)}", float(e[row])))
    lines.append(Line("result", "e = M x", vec(e, 8), e))
    hot = int(np.argmax(x))
    note = "x is not one-hot, so e mixes several columns of M."
    if one_hot:
        note = f"x picks column {hot + 1} of M: a lookup, no arithmetic needed."
        if m.shape[0] == m.shape[1]:  # a square M also has a row to confuse it with
            note += (f" (Written as the row vector xᵀM it would pick row {hot + 1} instead, "
                     f"{vec(m[hot], 8)}.)")
    return WorkedComputation("Embedding lookup", tuple(lines), values={"result": e}, note=note)


def layer_norm_example(x: np.ndarray, gamma: float = 1.0, beta: float = 0.0,
                       eps: float = 0.0) -> WorkedComputation:
    mu = float(x.mean())
    sigma = float(np.sqrt(((x - mu) ** 2).mean() + eps))
    if sigma == 0.0:
        raise ValueError("All values of x are equal, so σ = 0 and LayerNorm divides by zero; "
                         "type different values or a positive ε.")
    x_hat = (x - mu) / sigma
    y = gamma * x_hat + beta
    lines = [Line("input", "x", vec(x), x),
             Line("mean", "μ = (1/d) Σ x_i", f"{num(x.sum())} / {len(x)} = {num(mu)}", mu),
             Line("standard deviation", "σ = √((1/d) Σ (x_i − μ)²" + (" + ε)" if eps else ")"),
                  f"√({num(((x - mu) ** 2).mean())}" + (f" + {num(eps, 6)})" if eps else ")")
                  + f" = {num(sigma)}", sigma),
             Line("normalised", "x̂ = (x − μ) / σ", vec(x_hat), x_hat),
             Line("scale and shift", f"γ x̂ + β, γ = {num(gamma, 2)}, β = {num(beta, 2)}",
                  vec(y), y)]
    return WorkedComputation("Layer normalisation", tuple(lines),
                             values={"result": y, "mean": mu, "sigma": sigma})


CURVES_SHOWN = 6  # dimensions drawn as curves against position


def positional_example(d: int, positions: int) -> WorkedComputation:
    if d < 2 or d % 2:
        raise ValueError(f"d = {d}: the encoding pairs sin and cos, so d must be even and ≥ 2.")
    pos = np.arange(positions)[:, None]
    pair = np.arange(0, d, 2)
    angle = pos / np.power(10000.0, pair / d)
    table = np.zeros((positions, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    lines = [Line("frequencies", "1 / 10000^(2i/d) for each pair i",
                  vec(1 / np.power(10000.0, pair / d), 6), pair)]
    for p in range(min(positions, 8)):
        lines.append(Line(f"position {p}", f"[sin({p}·ω_i), cos({p}·ω_i), …]", vec(table[p]),
                          table[p]))
    shown = min(d, CURVES_SHOWN)  # the course's figure: the first dimensions as waves
    # drawn through every tenth of a position, so the fast waves read as waves; the table's
    # rows are the curves' values at the whole positions (x[::10])
    smooth = np.arange((positions - 1) * 10 + 1) / 10
    fine = smooth[:, None] / np.power(10000.0, pair / d)
    waves = (np.sin(fine), np.cos(fine))
    curves = tuple(Curve(f"dim {k} ({'sin' if k % 2 == 0 else 'cos'}, i = {k // 2})",
                         smooth, waves[k % 2][:, k // 2]) for k in range(shown))
    figure = Figure(f"PE(pos, dim) for the first {shown} of d = {d} dimensions", "position pos",
                    "PE", curves)
    return WorkedComputation(f"Sinusoidal positions, d = {d}", tuple(lines),
                             values={"result": table}, figure=figure)


def attention_matrix_example(weights: np.ndarray, values: np.ndarray | None = None
                             ) -> WorkedComputation:
    """A typed attention-weight matrix: its rows must sum to 1; Z = A V if V is given."""
    rows, cols = weights.sum(axis=1), weights.sum(axis=0)
    stochastic = bool(np.allclose(rows, 1.0, atol=1e-6) and (weights >= 0).all())
    lines = [Line("weights", "A (query rows × key columns)", matrix(weights, 2), weights),
             Line("row sums", "Σ_j α_ij (each query's weights)", vec(rows, 2), rows),
             Line("column sums", "Σ_i α_ij (need not be 1)", vec(cols, 2), cols)]
    result = {"result": rows, "columns": cols}
    if values is not None:
        if values.shape[0] != weights.shape[1]:
            raise ValueError(f"V has {values.shape[0]} rows but A has {weights.shape[1]} "
                             "columns: one value row per key.")
        z = weights @ values
        lines.append(Line("outputs", "Z = A V (row i: Σ_j α_ij v_j)", matrix(z, 4), z))
        result["outputs"] = z
    note = ("Every row sums to 1: each query spreads one unit of attention over the keys "
            "(row-stochastic)." if stochastic else
            "Not every row sums to 1 (or a weight is negative): a softmax could not give this.")
    return WorkedComputation("An attention matrix", tuple(lines), values=result, note=note)


def self_attention_example(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True,
                           scaled: bool = True) -> WorkedComputation:
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        raise ValueError(f"Q is {q.shape[0]}×{q.shape[1]}, K {k.shape[0]}×{k.shape[1]}, V "
                         f"{v.shape[0]}×{v.shape[1]}: Q and K need the same width d_k, K and "
                         "V one row per key.")
    d_k = q.shape[1]
    scores = q @ k.T
    e = scores / np.sqrt(d_k) if scaled else scores.copy()
    if causal:
        e[np.triu_indices(e.shape[0], 1, e.shape[1])] = -np.inf
    alpha = np.array([softmax(row) for row in e])
    z = alpha @ v
    lines = [Line("scores", "Q Kᵀ (entry ij = q_i · k_j)", matrix(scores), scores)]
    if scaled:
        lines.append(Line("scaled", f"Q Kᵀ / √d_k, d_k = {d_k}", matrix(scores / np.sqrt(d_k)),
                          scores / np.sqrt(d_k)))
    if causal:
        lines.append(Line("masked", "+ M (−∞ above the diagonal)", matrix(e), e))
    lines += [Line("weights", "α = softmax of each row", matrix(alpha), alpha),
              Line("outputs", "Z = α V", matrix(z), z)]
    return WorkedComputation("Self-attention", tuple(lines),
                             values={"result": z, "weights": alpha})


def window_example(sentence: str, centre: str, window: int) -> WorkedComputation:
    words = re.findall(r"[\w']+", sentence)
    lowered = [w.lower() for w in words]
    if centre.lower() not in lowered:
        raise ValueError(f"'{centre}' is not a word of the sentence; type one of its words.")
    at = lowered.index(centre.lower())
    context = words[max(0, at - window):at] + words[at + 1:at + 1 + window]
    pairs = [(words[at], c) for c in context]
    lines = [Line("sentence", f"{len(words)} words", " ".join(words), words),
             Line("centre word", f"w_c, position {at + 1}", words[at], words[at]),
             Line("context", f"m = {window} words each side", ", ".join(context), context),
             Line("skip-gram pairs", "(centre, context): predict each context word",
                  ", ".join(f"({a}, {b})" for a, b in pairs), pairs),
             Line("CBOW example", "context → centre: predict the centre from all of them",
                  f"[{', '.join(context)}] → {words[at]}", context),
             Line("the window slides", "each word in turn the centre [w], its context (w)",
                  "\n".join(_window_at(words, i, window) for i in range(len(words))), words)]
    return WorkedComputation("word2vec window", tuple(lines), values={"result": pairs})


def _window_at(words: list[str], at: int, window: int) -> str:
    """The sentence with word `at` as the centre [w] and its m neighbours each side (w)."""
    marked = [f"[{w}]" if i == at else f"({w})" if abs(i - at) <= window else w
              for i, w in enumerate(words)]
    return " ".join(marked)
