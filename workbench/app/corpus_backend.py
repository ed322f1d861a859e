"""The corpus facade the window talks to: loading and tokenizing as jobs.

Nothing here needs torch; the facade exists so the Qt room asks the backend for jobs the same
way for every domain (and tests can hand the window a fake backend).
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.dataset import tokenize_job
from workbench.core.corpus.encodings import AUTO
from workbench.core.corpus.loading import DEFAULT_GLOB, load_corpus_job
from workbench.core.jobs import JobSpec


class CorpusBackend:
    def load_job(self, path: str | Path, glob: str | None = None,
                 encoding: str | None = None, cleaning: CleaningConfig | None = None,
                 max_mb: int | None = None) -> JobSpec:
        """A job reading a file or folder; its result is a `Corpus` with statistics. `max_mb`
        caps its text (None: a share of memory, see core/corpus/limits.py)."""
        chosen = None if encoding in (None, "", AUTO) else encoding
        return load_corpus_job(path, glob=glob or DEFAULT_GLOB, encoding=chosen,
                               cleaning=cleaning, max_mb=max_mb)

    def tokenize_job(self, corpus, config: TokenizerConfig | None = None) -> JobSpec:
        """A job training a tokenizer on the corpus and splitting its ids (TokenizedCorpus)."""
        return tokenize_job(corpus, config or TokenizerConfig())
