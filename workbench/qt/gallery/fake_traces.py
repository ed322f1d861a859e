"""Hand-made traces and snapshots of the shapes real models give (2 layers; 8 units or 4 heads),
and jobs that finish at once: what the fake backend answers with."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from workbench.core.events import (
    Event,
    JobFinished,
)
from workbench.core.jobs import JobControl, JobSpec
from workbench.core.snapshot import Snapshot
from workbench.core.trace import LayerTrace, Trace

PROBE = list("To be, or not")


def snapshot(step: int = 100, arch: str = "lstm", run_dir: str = "") -> Snapshot:
    """A snapshot of the shape the hand-made traces have (2 layers; 8 units or 4 heads)."""
    sizes = {"num_layers": 2, "num_heads": 4} if arch == "transformer" else {
        "num_layers": 2, "hidden_size": 8}
    return Snapshot(model_config={"arch": arch, **sizes}, weights={}, tokenizer={}, step=step,
                    run_name="demo", run_dir=run_dir)


def lstm_trace(step: int = 100, hidden: int = 6, seed: int = 0) -> Trace:
    """Two LSTM layers with gates in (0, 1), states in (-1, 1), and the probe's extras."""
    rng = np.random.default_rng(seed + step)
    t = len(PROBE)
    layers = []
    for index in range(2):
        values = {g: 1 / (1 + np.exp(-rng.normal(0, 2, (t, hidden)))) for g in "ifo"}
        values["g"] = np.tanh(rng.normal(0, 1, (t, hidden)))
        values["c"] = np.cumsum(values["i"] * values["g"], axis=0)
        values["h"] = values["o"] * np.tanh(values["c"])
        layers.append(LayerTrace(f"lstm{index}", "lstm", values))
    logits = rng.normal(0, 1, (t, 10))
    extras = {"step": np.array(step),
              "topk_ids": np.tile(np.arange(5), (t, 1)),
              "topk_probs": np.tile(np.array([0.4, 0.2, 0.1, 0.05, 0.05]), (t, 1)),
              "topk_text": np.array([list("etaoi")] * t, dtype=object),
              "token_loss": np.concatenate([[np.nan], np.linspace(0.5, 4.0, t - 1)]),
              "pca_path": np.stack([np.cos(np.arange(t)), np.sin(np.arange(t))], 1),
              "pca_explained": np.array([0.6, 0.3])}
    for layer in layers:
        for gate in "ifo":
            v = layer.values[gate]
            extras[f"saturation/{layer.name}/{gate}"] = np.stack(
                [(v < 0.1).mean(0), (v > 0.9).mean(0)], 1)
        decay = 0.8 if layer.name.endswith("0") else 0.6
        extras[f"grad_norm/{layer.name}"] = decay ** np.arange(t - 1)[::-1]
    return Trace(np.arange(t), PROBE, logits, layers, extras=extras)


def transformer_trace(step: int = 100, heads: int = 4, layers: int = 2, d: int = 16) -> Trace:
    rng = np.random.default_rng(step)
    t = len(PROBE)
    out = []
    extras = {"step": np.array(step)}
    for index in range(layers):
        scores = rng.normal(0, 1, (heads, t, t))
        scores[:, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = -np.inf
        attn = np.exp(scores - scores.max(-1, keepdims=True))
        attn /= attn.sum(-1, keepdims=True)
        name = f"block{index}"
        out.append(LayerTrace(name, "attention", {"attn": attn, "scores": scores,
                                                  "resid": rng.normal(0, 1, (t, d))}))
        extras[f"head_stats/{name}"] = rng.random((heads, 4))
        # ‖∂L_T/∂x_t‖ of the stream entering the block: flat going back, the last one large
        grads = np.random.default_rng(step + index).uniform(0.2, 0.4, t - 1)  # rng's draws kept
        grads[-1] = 3.0
        extras["grad_norm/" + ("block 0 input (embeddings)" if index == 0
                               else f"block {index} input")] = grads
    pos = np.arange(t)[:, None] / 10000 ** (2 * (np.arange(d)[None, :] // 2) / d)
    extras["positional"] = np.where(np.arange(d) % 2 == 0, np.sin(pos), np.cos(pos))
    return Trace(np.arange(t), PROBE, rng.normal(0, 1, (t, 10)), out, extras=extras)


def later(title: str, work) -> JobSpec:
    """A job whose result is `work()`, computed on the job's thread."""
    def job(control: JobControl) -> Iterator[Event]:
        yield JobFinished(result=work())
    return JobSpec(title, job)


def finished(result) -> JobSpec:
    def job(control: JobControl) -> Iterator[Event]:
        yield JobFinished(result=result)
    return JobSpec("fake", job)
