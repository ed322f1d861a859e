"""The probe job: trace plus top-k, per-token loss, PCA path, statistics and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.generation_fixtures import abc_tokenizer
from workbench.core.events import JobFinished
from workbench.core.inspection.probes import probe_job
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.trace import LayerTrace, Trace


class FakeLstm:
    """Returns a fixed trace (as the model engineer's trace would) and known gradients."""

    def __init__(self, vocab: int = 8, hidden: int = 3) -> None:
        self.vocab, self.hidden = vocab, hidden

    def trace(self, tokens, state=None, clamp=None, token_text=None):
        ids = np.asarray(tokens)
        t = len(ids)
        logits = np.zeros((t, self.vocab))
        logits[:, 5] = 2.0  # "b" is always the most likely next token
        gates = np.linspace(0.0, 1.0, t * self.hidden).reshape(t, self.hidden)
        values = {g: gates for g in ("i", "f", "o")}
        values.update(g=gates * 2 - 1, c=gates, h=np.cumsum(np.ones((t, self.hidden)), axis=0))
        return Trace(tokens=ids, token_text=token_text or [], logits=logits,
                     layers=[LayerTrace("lstm0", "lstm", values)])

    def hidden_gradients(self, tokens, targets):
        t = len(np.asarray(tokens))
        return {"lstm0": 0.5 ** np.arange(t)[::-1]}


def run_probe(text="abca", **kw):
    events = list(drive(probe_job(FakeLstm(), abc_tokenizer(), text, step=12, **kw),
                        JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result


def test_probe_adds_what_the_inspectors_draw():
    trace = run_probe()
    x = trace.extras
    assert trace.token_text == ["a", "b", "c", "a"]
    assert int(x["step"]) == 12
    assert x["topk_text"][0, 0] == "b" and x["topk_ids"].shape == (4, 5)
    p_b = np.exp(2) / (np.exp(2) + 7)
    assert np.isclose(x["token_loss"][1], -np.log(p_b))  # "b" after "a": the likely one
    assert x["token_loss"][2] > x["token_loss"][1]
    assert x["pca_path"].shape == (4, 2) and np.isclose(x["pca_explained"][0], 1.0)
    assert set(k for k in x if k.startswith("saturation/")) == {
        "saturation/lstm0/i", "saturation/lstm0/f", "saturation/lstm0/o"}
    assert np.allclose(x["grad_norm/lstm0"], [0.25, 0.5, 1.0])


def test_probe_without_gradients_skips_them():
    assert "grad_norm/lstm0" not in run_probe(gradients=False).extras


def test_empty_and_too_long_probes_are_refused_with_what_to_do():
    with pytest.raises(UserFacingError, match="empty"):
        probe_job(FakeLstm(), abc_tokenizer(), "   ")
    with pytest.raises(UserFacingError, match="Shorten"):
        probe_job(FakeLstm(), abc_tokenizer(), "ab" * 300)
