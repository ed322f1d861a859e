"""Snapshots of encoder task models and a fake inspection backend answering for them, so the
classify / tagging / fill-in-the-blank views are tested without torch."""

from __future__ import annotations

import numpy as np

from workbench.core.events import EvalLogged
from workbench.core.jobs import UserFacingError
from workbench.core.predictions import ClassifyPrediction, FillMaskPrediction, TagPrediction
from workbench.core.snapshot import Snapshot

TAGS = ("ADJ", "DET", "NOUN", "VERB")


def task_snapshot(task: str, step: int = 100) -> Snapshot:
    return Snapshot(model_config={"arch": "sequence_classifier"}, weights={}, tokenizer={},
                    step=step, run_name="demo", task={"name": task})


def classify_answer(text: str, method: str = "attention") -> ClassifyPrediction:
    tokens = tuple(text.lower().split())
    values = np.linspace(1.0, 2.0, len(tokens))
    values = values / values.sum() if method == "attention" else values - 1.5
    return ClassifyPrediction(text, tokens, ("negative", "positive"), np.array([0.2, 0.8]),
                              values, method, f"shown: {method}")


def tag_answer(words: list[str]) -> TagPrediction:
    probs = np.full((len(words), len(TAGS)), 0.1)
    for i in range(len(words)):
        probs[i, (i + 1) % len(TAGS)] = 0.7  # DET NOUN VERB ADJ DET ...
    return TagPrediction(" ".join(words), tuple(words), TAGS, probs)


def fill_answer(text: str, first: str) -> FillMaskPrediction:
    tokens = tuple(text.split())
    masked = tuple(i for i, t in enumerate(tokens) if "[MASK]" in t)
    candidates = tuple((first, "be", "do") for _ in masked)
    probs = np.array([[0.5, 0.3, 0.1] for _ in masked])
    if "|||" not in tokens:
        return FillMaskPrediction(text, tokens, masked, candidates, probs)
    # a pair: [CLS] A [SEP] B [SEP], segments 0 then 1, and a next-sentence guess
    split = tokens.index("|||")
    tokens = ("[CLS]", *tokens[:split], "[SEP]", *tokens[split + 1:], "[SEP]")
    masked = tuple(i for i, t in enumerate(tokens) if "[MASK]" in t)
    segments = tuple([0] * (split + 2) + [1] * (len(tokens) - split - 2))
    return FillMaskPrediction(text, tokens, masked, candidates, probs, segments, 0.8)


def answer(task: str, texts, settings=None):
    """What the fake inspection backend answers for an encoder task's texts."""
    if task == "classify":
        return classify_answer(texts)
    if task == "tag":
        return tag_answer((settings or {}).get("words") or texts.split())
    if task == "masked_lm":
        firsts = ["cowboy boots", "bagels"]
        return [fill_answer(t, firsts[i % 2]) for i, t in enumerate(texts)]
    raise UserFacingError("not an encoder task")

def evaluation(step: int, confusion: list[list[int]], names=("neg", "pos")) -> EvalLogged:
    return EvalLogged(step, 0.5, float("nan"), float("nan"), 100, 1.0,
                      metrics={"val_loss": 0.5},
                      results={"classes": {"names": list(names), "confusion": confusion}})
