"""Classification and tagging metrics (numpy, torch-free, so the Qt room may hold the results).

For K classes and a confusion matrix C (rows = true class, columns = predicted class):
  accuracy   = Σ_k C[k, k] / Σ C
  precision_k = C[k, k] / Σ_i C[i, k]   (of what was predicted k, the share that was k)
  recall_k    = C[k, k] / Σ_j C[k, j]   (of what was k, the share predicted k)
  F1_k        = 2 · precision_k · recall_k / (precision_k + recall_k)
  macro-F1    = the unweighted mean of F1_k over the classes that occur (true or predicted)
A class never predicted has precision 0/0, taken as 0 (scikit-learn's zero_division=0); a class
that neither occurs nor is predicted is left out of the macro mean. For tagging, every real
token is one item: token accuracy and per-tag F1 are the same formulas over tokens.
[NOT IN SEEDS: the seeds name accuracy only (Keras metrics=['accuracy']).]
Sequence-to-sequence scores (exact match, BLEU, chrF against every reference) are in
`metrics.seq2seq`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def confusion_matrix(true: np.ndarray, predicted: np.ndarray, classes: int) -> np.ndarray:
    """(K, K) counts, C[t, p] = items of true class t predicted as p."""
    true = np.asarray(true, dtype=np.int64).ravel()
    predicted = np.asarray(predicted, dtype=np.int64).ravel()
    return np.bincount(true * classes + predicted, minlength=classes * classes).reshape(
        classes, classes)


DENSE_CLASSES = 50  # a confusion matrix of more classes is logged as its non-zero cells


@dataclass(frozen=True)
class ClassScores:
    """What the confusion-matrix view and the per-class bars draw."""

    names: tuple[str, ...]
    confusion: np.ndarray  # (K, K) int: rows true, columns predicted
    precision: np.ndarray  # (K,)
    recall: np.ndarray  # (K,)
    f1: np.ndarray  # (K,)
    support: np.ndarray  # (K,) true items per class

    @property
    def total(self) -> int:
        return int(self.confusion.sum())

    @property
    def accuracy(self) -> float:
        return float(np.trace(self.confusion) / max(self.total, 1))

    @property
    def macro_f1(self) -> float:
        present = (self.support > 0) | (self.confusion.sum(axis=0) > 0)
        return float(self.f1[present].mean()) if present.any() else 0.0

    def f1_by_name(self) -> dict[str, float]:
        """F1 of each class that occurs (true or predicted): the compact per-class figure."""
        present = (self.support > 0) | (self.confusion.sum(axis=0) > 0)
        return {n: round(float(f), 4) for n, f, p in zip(self.names, self.f1, present,
                                                         strict=True) if p}

    def to_dict(self) -> dict:
        """JSON-safe (run logs keep it). Up to DENSE_CLASSES classes the full matrix; beyond,
        only its non-zero cells as [true, predicted, count] triples: a K×K list for 5,000 tags
        made every validation line of metrics.jsonl 75 MB, while the cells that are not zero
        are at most the number of items scored."""
        if len(self.names) <= DENSE_CLASSES:
            return {"names": list(self.names), "confusion": self.confusion.tolist()}
        rows, columns = np.nonzero(self.confusion)
        cells = np.stack([rows, columns, self.confusion[rows, columns]], axis=1)
        return {"names": list(self.names), "cells": cells.tolist()}

    @staticmethod
    def from_dict(data: dict) -> ClassScores:
        names = tuple(data["names"])
        if "cells" not in data:
            return scores_from_confusion(np.asarray(data["confusion"], dtype=np.int64), names)
        confusion = np.zeros((len(names), len(names)), dtype=np.int64)
        cells = np.asarray(data["cells"], dtype=np.int64).reshape(-1, 3)
        np.add.at(confusion, (cells[:, 0], cells[:, 1]), cells[:, 2])
        return scores_from_confusion(confusion, names)


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    return np.divide(top, bottom, out=np.zeros(len(top), dtype=np.float64),
                     where=bottom > 0)


def scores_from_confusion(confusion: np.ndarray, names: tuple[str, ...]) -> ClassScores:
    hits = np.diag(confusion).astype(np.float64)
    predicted = confusion.sum(axis=0).astype(np.float64)
    support = confusion.sum(axis=1)
    precision = _ratio(hits, predicted)
    recall = _ratio(hits, support.astype(np.float64))
    f1 = _ratio(2 * precision * recall, precision + recall)
    return ClassScores(tuple(names), confusion, precision, recall, f1, support)


def class_scores(true: np.ndarray, predicted: np.ndarray, names: tuple[str, ...]
                 ) -> ClassScores:
    return scores_from_confusion(confusion_matrix(true, predicted, len(names)), tuple(names))


def masked_items(true: np.ndarray, predicted: np.ndarray, mask: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The real tokens of padded (B, T) tags: padding is no item of any metric."""
    mask = np.asarray(mask, dtype=bool)
    return np.asarray(true)[mask], np.asarray(predicted)[mask]


def most_frequent_baseline(train: list[str], test: list[str]) -> float:
    """Accuracy of always answering the training set's most frequent label."""
    if not train or not test:
        return 0.0
    values, counts = np.unique(np.asarray(train), return_counts=True)
    best = values[np.argmax(counts)]
    return float(np.mean(np.asarray(test) == best))


def per_word_majority_baseline(train_words: list[str], train_tags: list[str],
                               test_words: list[str], test_tags: list[str]) -> float:
    """Token accuracy of tagging each word with its most frequent training tag (unknown words
    get the most frequent tag overall): the usual most-frequent-tag baseline of POS tagging."""
    from collections import Counter, defaultdict

    by_word: dict[str, Counter] = defaultdict(Counter)
    for word, tag in zip(train_words, train_tags, strict=True):
        by_word[word][tag] += 1
    overall = Counter(train_tags).most_common(1)[0][0] if train_tags else ""
    guesses = [by_word[w].most_common(1)[0][0] if w in by_word else overall for w in test_words]
    return float(np.mean(np.asarray(guesses) == np.asarray(test_tags))) if test_tags else 0.0
