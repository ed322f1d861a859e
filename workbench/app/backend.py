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


@dataclass
class Backend:
    corpus: CorpusBackend = field(default_factory=CorpusBackend)
    embeddings: EmbeddingsBackend = field(default_factory=EmbeddingsBackend)
    inspection: InspectionBackend = field(default_factory=InspectionBackend)
    models: ModelsBackend = field(default_factory=ModelsBackend)
    training: TrainingBackend = field(default_factory=TrainingBackend)
    seq2seq: Seq2seqBackend | None = None  # shares the inspection facade's rebuilt models

    def __post_init__(self) -> None:
        if self.seq2seq is None:
            self.seq2seq = Seq2seqBackend(self.inspection)
