"""The fake corpus and embeddings domains: texts loaded in three progress steps, six random word
vectors asked the real (numpy) questions."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from workbench.core.api import Answer
from workbench.core.corpus.loading import Corpus
from workbench.core.events import (
    EpochEnded,
    JobFinished,
    Progress,
)
from workbench.core.jobs import JobSpec
from workbench.qt.gallery.fake_traces import finished, later


def corpus_of(text: str, name: str = "fake") -> Corpus:
    return Corpus(name, name, [(name, text)], size_bytes=len(text.encode()))


class FakeCorpus:
    """Loads `texts[path]` (or a line naming the path) as a Corpus in three Progress steps,
    each waiting for `gate` when one is given; tokenizing is the real, torch-free core job."""

    def __init__(self, gate: threading.Event | None = None, texts: dict | None = None) -> None:
        self.gate, self.texts = gate, texts or {}
        self.loaded: list[str] = []

    def load_job(self, path, glob=None, encoding=None, cleaning=None, max_mb=None):
        def job(control):
            for i in range(3):
                if self.gate is not None:
                    self.gate.wait(5)
                yield Progress(i + 1, 3, f"reading {path}")
            self.loaded.append(str(path))
            yield JobFinished(result=corpus_of(self.texts.get(str(path), f"text of {path}\n"),
                                               str(path)))
        return JobSpec(f"Loading {path}", job)

    def tokenize_job(self, corpus, config=None):
        from workbench.core.config.tokenizer import TokenizerConfig
        from workbench.core.corpus.dataset import tokenize_job

        return tokenize_job(corpus, config or TokenizerConfig())


def word_vectors(words=("king", "queen", "man", "woman", "sword", "romeo"), size: int = 8):
    from workbench.core.embeddings.vectors import WordVectors

    rng = np.random.default_rng(0)
    return WordVectors(list(words), rng.normal(size=(len(words), size)),
                       np.arange(len(words), 0, -1), "fake vectors")


class FakeEmbeddings:
    """Two 'epochs' of made-up metrics, then six random vectors; the questions are the real
    numpy queries (they are quick on six words)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def _answer(self, name, vectors, words, question):
        self.asked.append(name)
        forms = {w: f for w in words if (f := vectors.lookup(w)) not in (None, w)}
        return later(name, lambda: Answer(question(), forms))

    def train_job(self, corpus, config):
        def job(control):
            for epoch in (1, 2):
                yield EpochEnded(epoch, {"loss": 10.0 / epoch, "words_per_s": 1000.0})
            yield JobFinished(result=word_vectors(size=config.vector_size))
        return JobSpec("Training fake vectors", job)

    def map_job(self, vectors, method, seed=1, axes=()):
        return finished(np.random.default_rng(seed).normal(size=(len(vectors), 2)))

    def unavailable_map_methods(self):
        return {}

    def import_job(self, path, fmt, trust_code=False):
        return finished(word_vectors())

    def export_job(self, vectors, path, fmt):
        def job(control):
            Path(path).write_text("\n".join(vectors.words))
            yield JobFinished(result=[str(path)])
        return JobSpec("Exporting", job)

    def neighbours_job(self, vectors, words, k):
        return self._answer("neighbours", vectors, words, lambda: [
            (vectors.lookup(w) or w, n, s) for w in words for n, s in vectors.neighbours(w, k)])

    def analogy_job(self, vectors, a, b, c, k, method):
        return self._answer("analogy", vectors, [a, b, c],
                            lambda: vectors.analogy(a, b, c, k=k, method=method))

    def similarity_job(self, vectors, a, b):
        return self._answer("similarity", vectors, [a, b], lambda: vectors.similarity(a, b))

    def odd_one_out_job(self, vectors, words):
        return self._answer("odd", vectors, words, lambda: vectors.odd_one_out(list(words)))

    def feature_table_job(self, vectors, words, axes):
        return self._answer("features", vectors, list(words),
                            lambda: vectors.feature_table(list(words), list(axes)))

    def user_analogies_job(self, vectors, text, method):
        from workbench.core.embeddings.queries import user_analogies

        return finished(user_analogies(vectors, text, method))

    def analogy_report_job(self, vectors, path=None):
        return finished(SimpleNamespace(total=0, scored=0, oov=0, accuracy=float("nan")))

    def embedding_init_job(self, vectors, tokenizer, freeze):
        from workbench.core.embeddings.bridge import embedding_init

        return finished(embedding_init(vectors, tokenizer, freeze))
