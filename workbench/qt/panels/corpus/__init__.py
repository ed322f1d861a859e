"""The Corpus panel family: loading, statistics, text preview and tokenizer settings."""

from workbench.qt.panels.corpus.panel import CorpusPanel

__all__ = ["CorpusPanel"]
