"""Hand-made sequence-to-sequence traces and a fake seq2seq backend (no torch needed)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from workbench.core.events import DecodedToken, Event, JobFinished, Progress
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot
from workbench.core.trace import LayerTrace
from workbench.core.trace.seq2seq import DecodeResult, Seq2seqTrace
from workbench.qt.gallery.fake_traces import finished

SOURCE = list("3 Mar 2011")
OUTPUT = list("2011-03-03") + ["<eos>"]


def snapshot(step: int = 100, attention: str = "additive",
             arch: str = "rnn_seq2seq") -> Snapshot:
    return Snapshot(model_config={"arch": arch, "attention": attention}, weights={},
                    tokenizer={"source": {}, "target": {}}, step=step, run_name="dates",
                    task={"name": "seq2seq", "data": "dates"})


def alignment(step: int) -> np.ndarray:
    """Rows that sharpen with the step: a blur at step 0, near one-hot later."""
    rng = np.random.default_rng(step)
    sharp = 1.0 + step / 10
    scores = rng.normal(0, 1, (len(OUTPUT), len(SOURCE))) * sharp
    weights = np.exp(scores - scores.max(1, keepdims=True))
    return weights / weights.sum(1, keepdims=True)


def rnn_trace(step: int = 100, attention: bool = True) -> Seq2seqTrace:
    t, s, d = len(OUTPUT), len(SOURCE), 6
    rng = np.random.default_rng(step)
    weights = alignment(step) if attention else np.zeros((t, 0))
    states = rng.normal(0, 1, (s, d))
    return Seq2seqTrace(
        source_tokens=np.arange(s), source_text=SOURCE, target_tokens=np.arange(t),
        target_text=OUTPUT, logits=rng.normal(0, 1, (t, 12)), alignment=weights,
        decoder_states=rng.normal(0, 1, (t, d)), encoder_states=states,
        contexts=weights @ states if attention else None,
        top_tokens=tuple(((OUTPUT[i], 0.7), ("x", 0.2)) for i in range(t)), step=step)


def transformer_trace(step: int = 100, heads: int = 2) -> Seq2seqTrace:
    t, s = len(OUTPUT), len(SOURCE)
    rng = np.random.default_rng(step)

    def rows(q, k):
        w = rng.random((heads, q, k))
        return w / w.sum(-1, keepdims=True)

    self_w = rows(t, t) * np.tril(np.ones((t, t)))
    self_w /= self_w.sum(-1, keepdims=True)
    cross = rows(t, s)
    return Seq2seqTrace(
        source_tokens=np.arange(s), source_text=SOURCE, target_tokens=np.arange(t),
        target_text=OUTPUT, logits=rng.normal(0, 1, (t, 12)), alignment=cross.mean(0),
        decoder_states=rng.normal(0, 1, (t, 4)), encoder_states=rng.normal(0, 1, (s, 4)),
        encoder_layers=[LayerTrace("encoder layer 0", "attention", {"attn": rows(s, s)})],
        decoder_layers=[LayerTrace("decoder layer 0", "attention",
                                   {"self": self_w, "cross": cross})], step=step)


@dataclass
class FakeSeq2seq:
    probes: list = field(default_factory=list)
    decodes: list = field(default_factory=list)

    @staticmethod
    def default_probe(snapshot) -> str:
        return "3 Mar 2011 → 2011-03-03"

    def probe_job(self, snapshot, text, max_length=64):
        snap = snapshot
        if not text.strip():
            raise UserFacingError("Type an input for the model to read.")
        self.probes.append((snap.step, text))
        if snap.model_config["arch"] == "transformer_seq2seq":
            return finished(transformer_trace(snap.step))
        return finished(rnn_trace(snap.step, snap.model_config["attention"] != "none"))

    def decode_job(self, snapshot, text, settings):
        snap = snapshot
        self.decodes.append((text, settings))
        weights = alignment(snap.step)

        def job(control: JobControl) -> Iterator[Event]:
            tokens = []
            if settings.strategy == "beam":
                yield Progress(1, settings.max_length, "Beam search: 2")
            for i, piece in enumerate(OUTPUT):
                tokens.append(DecodedToken(i, 4 + i, piece, 0.9 - 0.05 * i,
                                           ((piece, 0.9 - 0.05 * i), ("x", 0.05)),
                                           tuple(weights[i])))
                yield tokens[-1]
            yield JobFinished(result=DecodeResult(SOURCE, tokens, "2011-03-03",
                                                  settings.strategy, -0.5))
        return JobSpec("Decode", job)
