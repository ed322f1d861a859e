"""The embeddings facade: word-vector jobs and the explorer's questions, all as jobs.

gensim, openTSNE and umap load only inside the jobs. A question on loaded vectors is a numpy
matrix-vector product, a few milliseconds at 100k words on a quiet machine but more on a busy
one, and the first question also normalises the whole matrix: so questions are query jobs too,
and nothing multiplies the matrix on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workbench.core.api import Answer
from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.events import JobFinished
from workbench.core.jobs import JobSpec, UserFacingError


def _answer_job(title: str, vectors, words: Sequence[str], question: Callable) -> JobSpec:
    """A query answering `question()`, with the words found only in another case."""
    def job(control):
        value = question()
        forms = {w: form for w in words if (form := vectors.lookup(w)) not in (None, w)}
        yield JobFinished(result=Answer(value, forms))
    return JobSpec(title, job)


def _plain_job(title: str, work: Callable) -> JobSpec:
    def job(control):
        yield JobFinished(result=work())
    return JobSpec(title, job)


class EmbeddingsBackend:
    def train_job(self, corpus, config: EmbeddingConfig) -> JobSpec:
        from workbench.core.embeddings.training import train_embeddings_job

        return train_embeddings_job(corpus.text, config, corpus.name)

    def map_job(self, vectors, method: str, seed: int = 1, axes: Sequence[str] = ()) -> JobSpec:
        if method == "axes":
            if len(axes) != 4:
                raise UserFacingError("Semantic axes need four words: a, b, c, d.")
            a, b, c, d = (w.strip() for w in axes)
            return _plain_job(f"Axes {a}→{b}, {c}→{d}",
                              lambda: vectors.project_on_axes((a, b), (c, d)))
        from workbench.core.embeddings.maps import map_job

        return map_job(vectors, method, seed)

    def unavailable_map_methods(self) -> dict[str, str]:
        from workbench.core.embeddings.maps import unavailable_methods

        return unavailable_methods()

    def import_job(self, path: str, fmt: str, trust_code: bool = False) -> JobSpec:
        """Read word vectors; `trust_code` only after the user confirmed the trust dialog
        (a gensim native file is a pickle, which runs code when opened)."""
        def load():
            from workbench.core.embeddings.interchange import load_vectors

            return load_vectors(path, fmt, trust_code=trust_code)
        return _plain_job(f"Importing {path}", load)

    def export_job(self, vectors, path: str, fmt: str) -> JobSpec:
        def save():
            from workbench.core.embeddings.interchange import save_vectors

            return [str(p) for p in save_vectors(vectors, path, fmt)]
        return _plain_job(f"Exporting {path}", save)

    # --- the explorer's questions ---------------------------------------------------------------

    def neighbours_job(self, vectors, words: Sequence[str], k: int) -> JobSpec:
        words = list(words)
        return _answer_job("Neighbours", vectors, words, lambda: [
            (vectors.lookup(w) or w, n, score) for w in words
            for n, score in vectors.neighbours(w, k)])

    def analogy_job(self, vectors, a: str, b: str, c: str, k: int, method: str) -> JobSpec:
        return _answer_job("Analogy", vectors, [a, b, c],
                           lambda: vectors.analogy(a, b, c, k=k, method=method))

    def similarity_job(self, vectors, a: str, b: str) -> JobSpec:
        return _answer_job("Similarity", vectors, [a, b], lambda: vectors.similarity(a, b))

    def feature_table_job(self, vectors, words: Sequence[str],
                          axes: Sequence[tuple[str, str]]) -> JobSpec:
        words, axes = list(words), list(axes)
        named = words + [w for pair in axes for w in pair]
        return _answer_job("Words × features", vectors, named,
                           lambda: vectors.feature_table(words, axes))

    def odd_one_out_job(self, vectors, words: Sequence[str]) -> JobSpec:
        words = list(words)
        return _answer_job("Odd one out", vectors, words, lambda: vectors.odd_one_out(words))

    def user_analogies_job(self, vectors, text: str, method: str) -> JobSpec:
        from workbench.core.embeddings.queries import user_analogies

        return _plain_job("Scoring analogies", lambda: user_analogies(vectors, text, method))

    def analogy_report_job(self, vectors, path: str | None = None) -> JobSpec:
        def report():
            from gensim.models import KeyedVectors

            from workbench.core.embeddings.evaluation import analogy_report

            wv = KeyedVectors(vectors.size)
            wv.add_vectors(vectors.words, vectors.vectors)
            return analogy_report(wv, path)
        return _plain_job("Evaluating analogies", report)

    def embedding_init_job(self, vectors, tokenizer, freeze: bool) -> JobSpec:
        def init():
            from workbench.core.embeddings.bridge import embedding_init

            return embedding_init(vectors, tokenizer, freeze)
        return _plain_job("Matching word vectors to the vocabulary", init)
