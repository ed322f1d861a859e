"""The sequence-to-sequence facade: probes for the alignment and attention views, and the
console's decoding, on snapshots (never the model being trained).

A probe is a source text, optionally with the expected output after an arrow
("3 March 2011 → 2011-03-03"): with one, the trace is teacher forced on that output (the
alignment of the right answer, which sharpens as the model learns); without, the model decodes
greedily and the trace follows its own output. torch loads inside the jobs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

from workbench.core.corpus.tokenizers import EOS, UNK, tokenizer_from_dict
from workbench.core.events import Event, JobFinished
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot

ARROW = re.compile(r"\s*(?:→|=>|->|\t)\s*")
MAX_PROBE = 200  # tokens on either side
TOP_K = 5
PROBE_CANDIDATES = 20  # generated pairs looked at for a probe the model can read
DEFAULT_PROBES = {  # for the built-in generated tasks: an input and its right output
    "dates": "Thursday, March 3rd 2011 → 2011-03-03",
    "reverse": "attention → noitnetta",
    "sort": "52817 → 12578",
    "addition": "123+45 → 168",
    "copy": "sequence → sequence",
}


def default_probe(snapshot: Snapshot | None) -> str:
    """The task's example pair when the model's vocabularies can read and write it, else the
    longest of the first pairs its own generated data holds: a date model trained on numeric
    formats only read "Thursday, March 3rd 2011" as a row of <unk>."""
    task = (snapshot.task or {}) if snapshot is not None else {}
    data = str(task.get("data", ""))
    probe = DEFAULT_PROBES.get(data, "")
    if (not probe or snapshot is None or not isinstance(snapshot.tokenizer, dict)
            or "source" not in snapshot.tokenizer):
        return probe
    try:
        source_tok, target_tok = (tokenizer_from_dict(snapshot.tokenizer["source"]),
                                  tokenizer_from_dict(snapshot.tokenizer["target"]))
    except (KeyError, TypeError, ValueError):
        return probe

    def readable(source: str, target: str) -> bool:
        return UNK not in source_tok.encode(source) and UNK not in target_tok.encode(target)

    if readable(*split_probe(probe)):
        return probe
    from workbench.core.data.generated import generate

    pairs = [pair for pair in generate(data, PROBE_CANDIDATES, int(task.get("length", 3)),
                                       int(task.get("data_seed", 0))) if readable(*pair)]
    if not pairs:
        return probe
    source, target = max(pairs, key=lambda pair: len(pair[0]))
    return f"{source} → {target}"


def split_probe(text: str) -> tuple[str, str | None]:
    """(source, expected output or None) of a probe text."""
    parts = ARROW.split(text.strip(), maxsplit=1)
    source = parts[0].strip()
    if not source:
        raise UserFacingError("Type an input for the model to read (optionally followed by "
                              "→ and the output you expect).")
    return source, (parts[1].strip() or None) if len(parts) > 1 else None


def is_seq2seq(snapshot: Snapshot) -> bool:
    return snapshot.task_name == "seq2seq"


class Seq2seqBackend:
    def __init__(self, inspection) -> None:
        self.inspection = inspection  # its cache of models rebuilt from snapshots

    @staticmethod
    def default_probe(snapshot: Snapshot | None) -> str:
        """A probe for the snapshot's built-in task with its right output, or ''."""
        return default_probe(snapshot)

    @staticmethod
    def tokenizers(snapshot: Snapshot) -> tuple[Any, Any]:
        """(source, target) tokenizers of a sequence-to-sequence snapshot; refuses others."""
        if snapshot is None or not is_seq2seq(snapshot):
            raise UserFacingError("This view shows sequence-to-sequence models; the current "
                                  "snapshot is a language model. Train or open a "
                                  "sequence-to-sequence run.")
        return (tokenizer_from_dict(snapshot.tokenizer["source"]),
                tokenizer_from_dict(snapshot.tokenizer["target"]))

    def probe_job(self, snapshot: Snapshot, text: str, max_length: int = 64) -> JobSpec:
        """A query whose result is the `Seq2seqTrace` of the probe (see the module doc)."""
        source_tok, target_tok = self.tokenizers(snapshot)
        source_text, expected = split_probe(text)
        source = source_tok.encode(source_text)
        target = target_tok.encode(expected) + [EOS] if expected else None
        if len(source) > MAX_PROBE or (target and len(target) > MAX_PROBE):
            raise UserFacingError(f"The probe is longer than {MAX_PROBE} tokens; shorten it.")

        def job(control: JobControl) -> Iterator[Event]:
            import torch

            from workbench.core.generation.seq2seq_decoding import greedy_batch

            model = self.inspection.model_for(snapshot)
            ids = torch.tensor([source])
            outputs = target
            if outputs is None:
                decoded, lengths = greedy_batch(model, ids, torch.ones_like(ids, dtype=bool),
                                                max_length)
                outputs = decoded[0, : int(lengths[0])].tolist()
            labels = [target_tok.readable_token(i) if i != EOS else "<eos>" for i in outputs]
            trace = model.trace(ids, torch.tensor([outputs]),
                                [source_tok.readable_token(i) for i in source], labels)
            yield JobFinished(result=dataclasses.replace(
                trace, top_tokens=_top_tokens(trace.logits, target_tok), step=snapshot.step))

        return JobSpec(f"Probe {snapshot.label}", job)

    def decode_job(self, snapshot: Snapshot, text: str, settings) -> JobSpec:
        """The console: streams `DecodedToken`s; its result is a `DecodeResult`."""
        self.tokenizers(snapshot)
        source_text, _ = split_probe(text)

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.tasks import task_class

            model = self.inspection.model_for(snapshot)
            spec = task_class(snapshot.task_name).predict(model, snapshot.tokenizer,
                                                          source_text, settings)
            yield from spec.job(control)

        return JobSpec(f"Decode with {snapshot.label}", job)


def _top_tokens(logits, tokenizer, k: int = TOP_K) -> tuple:
    """The k most likely tokens of each output step, as (text, probability)."""
    import numpy as np

    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    rows = []
    for row in probs:
        best = np.argsort(-row)[:k]
        rows.append(tuple((tokenizer.readable_token(int(i)) if int(i) != EOS else "<eos>",
                           float(row[i])) for i in best))
    return tuple(rows)
