"""Sequence-to-sequence scores against every reference a source has (issue 29, item 6).

A file of pairs often gives one source several targets ("That's fun." → "C'est amusant." and
"C'est marrant."): each is a right answer, so all of them are the source's references.
- exact match: the output equals any reference (token ids, as the model reads them);
- BLEU (Papineni et al. 2002) and chrF (Popović 2015) with sacrebleu's defaults, multi-
  reference: the output against all of its source's references at once. Both on the 0-100
  scale sacrebleu reports, over the whole set (corpus-level, not a mean of sentences).
The outputs are text decoded with the target's detokeniser (corpus/detokenize.py), so a word
model's "Faites-le." is scored as written, not as "Faites - le .".
[NOT IN SEEDS: the seeds score translation by exact match only.]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass


def references_of(pairs: Sequence[tuple[str, str]], sources: Sequence[str]) -> list[list[str]]:
    """For each of `sources`, every distinct target `pairs` give it, in file order."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for source, target in pairs:
        if target not in by_source[source]:
            by_source[source].append(target)
    return [list(by_source.get(s, [])) for s in sources]


def exact_matches(outputs: Sequence[Sequence[int]], references: Sequence[Sequence[Sequence[int]]]
                  ) -> list[bool]:
    """Whether each output (ids, <eos> excluded) equals one of its references' ids."""
    return [any(list(out) == list(ref) for ref in refs)
            for out, refs in zip(outputs, references, strict=True)]


def _streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """sacrebleu's reference streams: stream k holds each sentence's k-th reference, None
    where a sentence has fewer (sacrebleu leaves those out of that sentence's references)."""
    width = max((len(r) for r in references), default=0)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]


@dataclass(frozen=True)
class TextScores:
    bleu: float  # 0-100
    chrf: float  # 0-100


def text_scores(outputs: Sequence[str], references: Sequence[Sequence[str]]) -> TextScores:
    """Corpus BLEU and chrF of `outputs`, each against all of its references."""
    import sacrebleu

    if not outputs:
        return TextScores(0.0, 0.0)
    if any(not refs for refs in references):
        raise ValueError("every output needs at least one reference")
    streams = _streams(references)
    bleu = sacrebleu.metrics.BLEU().corpus_score(list(outputs), streams).score
    chrf = sacrebleu.metrics.CHRF().corpus_score(list(outputs), streams).score
    return TextScores(float(bleu), float(chrf))
