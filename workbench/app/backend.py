"""The backend the Qt room talks to: one torch-aware facade per domain, built lazily.

Each attribute turns UI requests (plain config dataclasses, paths, strings) into core jobs
(`JobSpec`) or quick answers of numpy arrays and scalars. torch and gensim are imported only
inside these facades' methods, so the window shows before they load.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.app.corpus_backend import CorpusBackend
from workbench.app.embeddings_backend import EmbeddingsBackend
from workbench.app.inspection_backend import InspectionBackend
from workbench.app.models_backend import ModelsBackend
from workbench.app.seq2seq_backend import Seq2seqBackend
from workbench.app.training_backend import TrainingBackend
from workbench.core.api import (
    CorpusApi,
    EmbeddingsApi,
    InspectionApi,
    ModelsApi,
    Seq2seqApi,
    TrainingApi,
)


@dataclass
class Backend:
    """`workbench.core.api.Backend` for real (its members typed by the domain Protocols, which
    the window sees, so a type checker holds each facade to its Protocol)."""

    corpus: CorpusApi = field(default_factory=CorpusBackend)
    embeddings: EmbeddingsApi = field(default_factory=EmbeddingsBackend)
    inspection: InspectionApi = field(default_factory=InspectionBackend)
    models: ModelsApi = field(default_factory=ModelsBackend)
    training: TrainingApi = field(default_factory=TrainingBackend)
    seq2seq: Seq2seqApi = field(init=False)  # shares the inspection facade's rebuilt models

    def __post_init__(self) -> None:
        self.seq2seq = Seq2seqBackend(self.inspection)
