"""What `workbench evaluate` reports, and its notes on text the model cannot read (characters a
character model never saw, a word model's <unk>): shared by every task's scoring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.core.corpus.tokenizers import UNK
from workbench.core.jobs import UserFacingError


@dataclass
class EvaluationReport:
    """What `workbench evaluate` prints (and writes as JSON)."""

    task: str
    data: str
    items: int  # pairs, sentences, words or tokens scored
    item_name: str
    metrics: dict[str, float]
    results: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"task": self.task, "data": self.data, "items": self.items,
                "item_name": self.item_name, "metrics": self.metrics, "results": self.results,
                "notes": self.notes}


def unknown_characters(tokenizer, texts: list[str]) -> dict[str, int]:
    """Characters of `texts` a character tokenizer has no id for, with their counts ({} for
    other tokenizers: a word model's unknown words are its <unk>, counted separately)."""
    if tokenizer.kind != "char":
        return {}
    from collections import Counter

    known = set(tokenizer.stoi)
    counts: Counter = Counter()
    for text in texts:
        counts.update(c for c in text if c not in known)
    return dict(counts.most_common())


def unknown_note(unknown: dict[str, int], allow: bool, where: str) -> str:
    """'' when nothing is unknown; a note when allowed; else a refusal (UserFacingError)."""
    if not unknown:
        return ""
    shown = ", ".join(f"{c!r} ×{n}" for c, n in list(unknown.items())[:12])
    text = (f"{where} has {sum(unknown.values()):,} characters ({len(unknown)} distinct) this "
            f"model has no token for: {shown}")
    if not allow:
        raise UserFacingError(text + ". They would be read as <unk>; clean them out, or pass "
                              "--allow-unknown to score them so.")
    return text + "; scored as <unk>."


def unknown_words_note(tokenizer, rows: list[list[int]] | list[np.ndarray], what: str) -> str:
    """A word model's <unk> share of the scored words ('' for other tokenizers or none)."""
    if tokenizer.kind != "word":
        return ""
    total = sum(len(r) for r in rows)
    unknown = sum(int(np.sum(np.asarray(r) == UNK)) for r in rows)
    return (f"{unknown:,} of {total:,} {what} words ({unknown / max(total, 1):.1%}) are not "
            "in the model's vocabulary (read as <unk>).") if unknown else ""
