"""The embeddings facade: word-vector jobs and queries for the Embeddings panel.

gensim, openTSNE and umap load only inside the jobs. Queries on loaded vectors are numpy
matrix-vector products (a few milliseconds at 100k words) and answer directly.
"""

from __future__ import annotations

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.events import JobFinished
from workbench.core.jobs import JobSpec


class EmbeddingsBackend:
    def train_job(self, corpus, config: EmbeddingConfig) -> JobSpec:
        from workbench.core.embeddings.training import train_embeddings_job

        return train_embeddings_job(corpus.text, config, corpus.name)

    def map_job(self, vectors, method: str, seed: int = 1) -> JobSpec:
        from workbench.core.embeddings.maps import map_job

        return map_job(vectors, method, seed)

    def unavailable_map_methods(self) -> dict[str, str]:
        from workbench.core.embeddings.maps import unavailable_methods

        return unavailable_methods()

    def import_job(self, path: str, fmt: str) -> JobSpec:
        def job(control):
            from workbench.core.embeddings.interchange import load_vectors

            yield JobFinished(result=load_vectors(path, fmt))

        return JobSpec(f"Importing {path}", job)

    def export(self, vectors, path: str, fmt: str) -> list[str]:
        from workbench.core.embeddings.interchange import save_vectors

        return [str(p) for p in save_vectors(vectors, path, fmt)]

    def analogy_report_job(self, vectors, path: str | None = None) -> JobSpec:
        def job(control):
            from gensim.models import KeyedVectors

            from workbench.core.embeddings.evaluation import analogy_report

            wv = KeyedVectors(vectors.size)
            wv.add_vectors(vectors.words, vectors.vectors)
            yield JobFinished(result=analogy_report(wv, path))

        return JobSpec("Evaluating analogies", job)

    def user_analogies(self, vectors, text: str, method: str):
        from workbench.core.embeddings.evaluation import user_analogies

        return user_analogies(vectors, text, method)

    def embedding_init(self, vectors, tokenizer, freeze: bool):
        from workbench.core.embeddings.bridge import embedding_init

        return embedding_init(vectors, tokenizer, freeze)
