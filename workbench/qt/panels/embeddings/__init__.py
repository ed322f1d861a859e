"""The Embeddings panel: word2vec and fastText training, explorer and maps."""

from workbench.qt.panels.embeddings.panel import EmbeddingsPanel

__all__ = ["EmbeddingsPanel"]
