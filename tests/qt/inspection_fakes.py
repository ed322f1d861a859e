"""Hand-made traces and a fake inspection backend, so inspector tests need no torch model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

import numpy as np

from workbench.core.events import Event, JobFinished, Progress, TokenGenerated
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot
from workbench.core.trace import LayerTrace, Trace

PROBE = list("To be, or not")


def snapshot(step: int = 100, arch: str = "lstm") -> Snapshot:
    return Snapshot(model_config={"arch": arch}, weights={}, tokenizer={}, step=step,
                    run_name="demo")


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
    pos = np.arange(t)[:, None] / 10000 ** (2 * (np.arange(d)[None, :] // 2) / d)
    extras["positional"] = np.where(np.arange(d) % 2 == 0, np.sin(pos), np.cos(pos))
    return Trace(np.arange(t), PROBE, rng.normal(0, 1, (t, 10)), out, extras=extras)


def finished(result) -> JobSpec:
    def job(control: JobControl) -> Iterator[Event]:
        yield JobFinished(result=result)
    return JobSpec("fake", job)


@dataclass
class FakeInspection:
    """Answers probe requests with hand-made traces of the snapshot's architecture."""

    probes: list = field(default_factory=list)
    generations: list = field(default_factory=list)

    def probe_job(self, snap, text, gradients=True, **_):
        if not text.strip():
            raise UserFacingError("The probe text is empty. Type a sentence to probe the model.")
        self.probes.append((snap.step, text, gradients))
        make = transformer_trace if snap.arch == "transformer" else lstm_trace
        return finished(replace(make(snap.step)))

    def load_checkpoint_job(self, path):
        return finished(snapshot(step=999))

    def generation_job(self, snap, prompt, config, clamp=None):
        self.generations.append((prompt, config, clamp))
        words = ["the", " king", " is", " dead", "."]

        def job(control: JobControl) -> Iterator[Event]:
            if config.strategy == "beam":  # as the real job: progress while the beams grow
                yield Progress(1, config.max_tokens,
                               f"Beam search: 1 of {config.max_tokens} tokens; best so far '<the'")
            for i, w in enumerate(words[: config.max_tokens]):
                yield TokenGenerated(i, 10 + i, w, 0.5 / (i + 1), 1.0 + i, i,
                                     ((w, 0.5 / (i + 1)), ("x", 0.1)))
            text = "".join(words[: config.max_tokens])
            yield JobFinished(result=SimpleNamespace(prompt=prompt, text=text,
                                                     stopped_by="length"))
        return JobSpec("Generate", job)


def fake_backend() -> SimpleNamespace:
    return SimpleNamespace(inspection=FakeInspection())
