"""`workbench evaluate` for a language model: nats per token and per character, perplexity and
bits, on a text file or a folder of texts (each file one piece: no block crosses two files).

Fresh blocks of the model's context (its `context_length`; `block` tokens for a model without
one): what a transformer is read at, and a recurrent model like for like with it. A model that
keeps a state is also read with its state carried through each file from its start
(lm_scoring.py). Per character: the same nats divided by the characters the scored tokens
spell, so a character, word and BPE model can be compared on one text.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from workbench.core.corpus.tokenizers import UNK, tokenizer_from_dict
from workbench.core.evaluation import lm_scoring
from workbench.core.evaluation.report import (
    EvaluationReport,
    unknown_characters,
    unknown_note,
)
from workbench.core.jobs import UserFacingError

DEFAULT_BLOCK = 64  # for a model without a context length (nanoGPT's CPU recipe's context)


def read_documents(path: Path) -> list[tuple[str, str]]:
    """(name, text) of a file, or of every text file of a folder, as the Corpus panel reads
    them (encoding detected, the default cleaning)."""
    from workbench.core.corpus.loading import load_corpus

    corpus = load_corpus(path)
    documents = [(name, text) for name, text in corpus.documents if text]
    if not documents:
        raise UserFacingError(f"{path} holds no text to score.")
    return documents


def _figures(nats: float, tokens: int, chars: int) -> dict[str, float]:
    per_token = nats / max(tokens, 1)
    return {"nats_per_token": per_token, "perplexity": math.exp(min(per_token, 700.0)),
            "bits_per_token": per_token / math.log(2), "nats_per_char": nats / max(chars, 1),
            "bits_per_char": nats / max(chars, 1) / math.log(2), "tokens": float(tokens),
            "chars": float(chars)}


def evaluate_language_model(model, vocabulary: dict, path: Path, block: int | None = None,
                            allow_unknown: bool = False) -> EvaluationReport:
    tokenizer = tokenizer_from_dict(vocabulary)
    documents = read_documents(path)
    notes = [unknown_note(unknown_characters(tokenizer, [t for _, t in documents]),
                          allow_unknown, path.name)]
    context = getattr(model.config, "context_length", None)
    block = int(block or context or DEFAULT_BLOCK)
    if context and block > context:
        raise UserFacingError(f"This model reads at most {context} tokens; --block {block} is "
                              "longer.")
    pieces, parts, at = [], [], 0
    for _, text in documents:
        ids = np.asarray(tokenizer.encode(text), dtype=np.int64)
        parts.append(ids)
        pieces.append((at, at + len(ids)))
        at += len(ids)
    ids = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    if tokenizer.kind == "word" and len(ids):
        unknown = int(np.sum(ids == UNK))
        if unknown:
            notes.append(f"{unknown:,} of {len(ids):,} words ({unknown / len(ids):.1%}) are not "
                         "in the model's vocabulary (read as <unk>, which flatters the figure).")
    model.eval()
    try:
        inputs, targets = lm_scoring.heldout_blocks(ids, pieces, block)
    except ValueError:
        raise UserFacingError(f"{path.name} is shorter than one block of {block + 1} tokens; "
                              "give a longer text or a smaller --block.") from None
    fresh = lm_scoring.fresh_nats(model, inputs, targets)
    metrics = _figures(fresh * targets.size, targets.size, _chars(tokenizer, ids, pieces, block))
    results: dict = {"block": block}
    if getattr(model, "supports_state", False):
        nats, count = lm_scoring.carried_nats(model, ids, pieces)
        chars = sum(_spelled(tokenizer, ids[s + 1:e]) for s, e in pieces if e - s > 1)
        results["carried"] = _figures(nats, count, chars)
    return EvaluationReport("language_model", str(path), int(targets.size), "tokens",
                            metrics, results, [n for n in notes if n])


def _spelled(tokenizer, ids: np.ndarray) -> int:
    return len(tokenizer.decode([int(i) for i in ids]))


def _chars(tokenizer, ids: np.ndarray, pieces: list[tuple[int, int]], block: int) -> int:
    """Characters the fresh blocks' targets spell: per piece, the consecutive stretch from its
    second token to the end of its last whole block."""
    total = 0
    for start, end in pieces:
        blocks = len(range(start, end - block, block))
        if blocks:
            total += _spelled(tokenizer, ids[start + 1: start + 1 + blocks * block])
    return total
