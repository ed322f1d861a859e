"""One attention weight α_ij of a transformer, and token i's output, computed from the block's
own weights: the click on an attention cell.

From row i and row j of the block's attention input X (the trace's "attn_in") and the block's
weights (W^Q, W^K, W^V side by side in `qkv`, W^O in `proj`, each with its bias):

  q_i = x_i W^Q_h + b^Q_h,  k_j = x_j W^K_h + b^K_h          (one head's slice)
  with rotary positions (RoPE, Su et al. 2021): q_i and k_j turned by their positions,
      q̃_i = R_i q_i, k̃_j = R_j k_j, and s_ij = q̃_i · k̃_j      (`models.rotary`)
  with grouped-query attention: head h reads key/value head h // (heads / kv_heads)
  s_ij = q_i · k_j,  e_ij = s_ij / √d_k + M_ij                 (M_ij = −∞ for j > i)
  α_ij = exp(e_ij) / Σ_j' exp(e_ij')                           (softmax over row i)
  head_h,i = Σ_j α_ij v_j
  MultiHead_i = (head_1,i ⊕ … ⊕ head_H,i) W^O + b^O

Everything is recomputed here in numpy; tests check it equals the trace's α, head output and
attention output, which the model computed in torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from workbench.core.worked.records import Line, WorkedComputation, num, products, softmax, vec

SOURCE = ("Vaswani et al. 2017, eq. 1 and sec. 3.2.2; Jurafsky & Martin, SLP3 ch. 9, "
          "eqs. 9.31–9.36 and 9.43–9.45")


def block_prefix(weights: Mapping[str, np.ndarray], prefix: str) -> str:
    """The block's name in the weights: "blocks.0." of a language model, "encoder.blocks.0."
    of an encoder's task model (a masked LM, a classifier), whose blocks sit in its encoder."""
    if prefix + "qkv.weight" not in weights and "encoder." + prefix + "qkv.weight" in weights:
        return "encoder." + prefix
    return prefix


def _linear(x: np.ndarray, weights: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """x W + b with torch's Linear layout (W is out × in); no b where the model has none."""
    out = x @ np.asarray(weights[name + ".weight"], np.float64).T
    bias = weights.get(name + ".bias")
    return out if bias is None else out + np.asarray(bias, np.float64)


def _projections(x: np.ndarray, weights: Mapping[str, np.ndarray], prefix: str, heads: int):
    """Q (T, D) and K, V (T, D) of the whole probe, K and V repeated to one per query head
    where key/value heads are shared (grouped-query attention), and the query heads per
    key/value head."""
    qkv = _linear(x, weights, block_prefix(weights, prefix) + "qkv")  # (T, D + 2·kv·d_k)
    width = x.shape[1]
    d_k = width // heads
    kv_width = (qkv.shape[1] - width) // 2
    k, v = qkv[:, width:width + kv_width], qkv[:, width + kv_width:]
    groups = heads // (kv_width // d_k)
    if groups > 1:  # kv head h // groups serves query head h
        k, v = (np.repeat(t.reshape(len(x), -1, d_k), groups, axis=1).reshape(len(x), width)
                for t in (k, v))
    return qkv[:, :width], k, v, groups


def _rotated(t: np.ndarray, cos: np.ndarray, sin: np.ndarray, heads: int) -> np.ndarray:
    """RoPE on every head of t (T, D): pair (p, p + d_k/2) of position i turned by i·θ_p."""
    steps, width = t.shape
    per_head = t.reshape(steps, heads, -1)
    half = per_head.shape[-1] // 2
    turned = np.concatenate([-per_head[..., half:], per_head[..., :half]], axis=-1)
    return (per_head * cos[:, None] + turned * sin[:, None]).reshape(steps, width)


def attention_computation(values: Mapping[str, np.ndarray], weights: Mapping[str, np.ndarray],
                          prefix: str, head: int, i: int, j: int, tokens: Sequence[str],
                          causal: bool = True, scaled: bool = True) -> WorkedComputation:
    """α_ij of `head` and the attention output of token i, line by line.

    `values`: a transformer layer's trace values ("attn_in" and "attn" at least); `weights`:
    the snapshot's weights; `prefix`: the block's name in them ("blocks.0.")."""
    x = np.asarray(values["attn_in"], dtype=np.float64)  # (T, D)
    steps, width = x.shape
    heads = int(np.asarray(values["attn"]).shape[0])
    d_k = width // heads
    if not (0 <= i < steps and 0 <= j < steps and 0 <= head < heads):
        raise ValueError(f"cell ({i}, {j}) of head {head} is outside the {steps}×{steps} map "
                         f"of {heads} heads")
    q_all, k_all, v_all, groups = _projections(x, weights, prefix, heads)
    part = slice(head * d_k, (head + 1) * d_k)
    q_plain, k_plain = q_all[:, part], k_all[:, part]  # before any rotation
    rope = "rope_cos" in values
    if rope:  # rotary positions: the scores read the rotated q and k
        cos, sin = (np.asarray(values[name], np.float64) for name in ("rope_cos", "rope_sin"))
        q_all, k_all = _rotated(q_all, cos, sin, heads), _rotated(k_all, cos, sin, heads)
    q, k, v = q_all[:, part], k_all[:, part], v_all[:, part]

    def row_weights(h: int) -> np.ndarray:
        hp = slice(h * d_k, (h + 1) * d_k)
        e = q_all[i, hp] @ k_all[:, hp].T / (np.sqrt(d_k) if scaled else 1.0)
        if causal:
            e[i + 1:] = -np.inf
        return softmax(e)

    score = float(q[i] @ k[j])
    scaled_score = score / np.sqrt(d_k) if scaled else score
    mask = -np.inf if causal and j > i else 0.0
    e_row = q[i] @ k.T / (np.sqrt(d_k) if scaled else 1.0)
    if causal:
        e_row[i + 1:] = -np.inf
    alpha_row = softmax(e_row)
    visible = np.isfinite(e_row)
    head_out = alpha_row @ v  # (d_k,)
    concat = np.concatenate([row_weights(h) @ v_all[:, h * d_k:(h + 1) * d_k]
                             for h in range(heads)])
    prefix = block_prefix(weights, prefix)
    output = _linear(concat, weights, prefix + "proj")
    ti, tj = _label(tokens, i), _label(tokens, j)
    top = np.argsort(-alpha_row)[:3]
    b_q = " + b^Q" if prefix + "qkv.bias" in weights else ""
    b_k = " + b^K" if b_q else ""
    shared = f", key/value head {head // groups} of {heads // groups}" if groups > 1 else ""
    lines = [
        Line("query row", f"x_{i} (token {ti}), row {i} of the attention input X",
             vec(x[i]), x[i]),
        Line("query", f"q_{i} = x_{i} W^Q{b_q} (head {head}'s {d_k} columns)",
             vec(q_plain[i]), q_plain[i]),
        Line("key", f"k_{j} = x_{j} W^K{b_k} (token {tj}){shared}", vec(k_plain[j]), k_plain[j]),
    ]
    if rope:
        lines += [
            Line("rotated query", f"q̃_{i} = R_{i} q_{i}: pair (p, p + {d_k // 2}) turned by "
                 f"{i}·θ_p (RoPE)", vec(q[i]), q[i]),
            Line("rotated key", f"k̃_{j} = R_{j} k_{j}: turned by {j}·θ_p", vec(k[j]), k[j]),
            Line("score", f"s = q̃_{i} · k̃_{j} (depends on i − j = {i - j})",
                 f"{products(q[i], k[j])} = {num(score)}", score),
        ]
    else:
        lines.append(Line("score", f"s = q_{i} · k_{j}", f"{products(q[i], k[j])} = {num(score)}",
                          score))
    if scaled:
        lines.append(Line("scaled", "s / √d_k", f"{num(score)} / √{d_k} = {num(scaled_score)}",
                          scaled_score))
    else:
        lines.append(Line("not scaled", "s (the 1/√d_k scaling is ablated)", num(score), score))
    if causal:
        lines.append(Line("mask", f"e = s{' / √d_k' if scaled else ''} + M_{i}{j}",
                          f"{num(scaled_score)} + {num(mask)} = {num(scaled_score + mask)}"
                          + ("  (key after the query: masked)" if j > i else "  (j ≤ i: seen)"),
                          scaled_score + mask))
    denominator = float(np.exp(e_row[visible] - e_row[visible].max()).sum())
    lines += [
        Line("softmax over the row", f"α_{{{i},j}} = exp(e_{{{i},j}}) / Σ_j' exp(e_{{{i},j'}}), "
             f"{int(visible.sum())} keys" + (f" (j ≤ {i})" if causal else ""),
             f"e_{{{i},·}} = {vec(e_row[visible])}; α_{{{i},·}} = {vec(alpha_row[visible])}",
             alpha_row),
        Line("this weight", f"α_{{{i},{j}}}", f"exp({num(e_row[j]) if visible[j] else '−∞'} − "
             f"{num(e_row[visible].max())}) / {num(denominator)} = {num(alpha_row[j])}",
             float(alpha_row[j])),
        Line("head output", f"head_{{{head},{i}}} = Σ_j α_{{{i},j}} v_j",
             " + ".join(f"{num(alpha_row[t])}×v_{t}" for t in top)
             + (f" + … ({int(visible.sum())} terms)" if visible.sum() > 3 else "")
             + f" = {vec(head_out)}", head_out),
        Line("concatenation", f"head_0,{i} ⊕ … ⊕ head_{heads - 1},{i}",
             f"{heads} heads × {d_k} = {width} values: {vec(concat)}", concat),
        Line("output", f"MultiHead_{i} = (head_0,{i} ⊕ … ⊕ head_{heads - 1},{i}) W^O"
             + (" + b^O" if prefix + "proj.bias" in weights else ""),
             vec(output), output),
    ]
    return WorkedComputation(
        title=f"Attention weight α_{{{i},{j}}} of head {head} ({ti} attends to {tj}), and the "
              f"output of token {ti}", lines=tuple(lines), source=SOURCE,
        values={"score": score, "scaled": scaled_score, "alpha": float(alpha_row[j]),
                "alpha_row": alpha_row, "head_out": head_out, "concat": concat,
                "output": output, "q": q[i], "k": k[j]})


def _label(tokens: Sequence[str], index: int) -> str:
    text = tokens[index] if index < len(tokens) else str(index)
    return repr(text.replace("\n", "↵"))
