"""What the backend offers the Qt room, domain by domain, as typed Protocols (torch-free).

The window never sees torch or gensim: it asks a backend for *jobs* (`JobSpec`, run on the job
thread or queued on the query thread by the controller) and for a few quick answers, and gets
back core dataclasses of numpy arrays and Python scalars. This module says which requests each
domain answers; `workbench.app.backend.Backend` implements it for real, and the tests use one
shared fake (`tests/qt/fake_backend.py`) that implements the same Protocols, checked by
`tests/qt/test_backend_protocols.py` so the two cannot drift apart.

Adding a domain (as `seq2seq` was): write `class Seq2seqApi(Protocol)` here with its methods, add
`seq2seq: Seq2seqApi` to `Backend` below, implement it in `workbench/app/` and register it in
`app/backend.py`, and give the shared fake a `FakeSeq2seq`. The protocol test then checks both.

Conventions: a method that can take longer than a few milliseconds returns a `JobSpec[R]`
whose `JobFinished.result` is an `R`; it raises `UserFacingError` at once for a request that
cannot start (bad settings), before any thread runs. Only cheap answers are plain methods.
The domain types are imported for type checking only, so importing this module imports
nothing heavy (import-linter ignores TYPE_CHECKING imports).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar

from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.cleaning import CleaningConfig
from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.seq2seq import Seq2seqDecodeConfig
from workbench.core.config.summary import MatchedSize, ModelSummary
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import TestLogged
from workbench.core.jobs import JobSpec
from workbench.core.predictions import Prediction
from workbench.core.snapshot import Snapshot
from workbench.core.trace import Trace
from workbench.core.trace.seq2seq import DecodeResult, Seq2seqTrace

if TYPE_CHECKING:  # the types of results; none of these modules loads at run time
    import numpy as np

    from workbench.core.corpus.dataset import TokenizedCorpus
    from workbench.core.corpus.loading import Corpus
    from workbench.core.corpus.tokenizers import Tokenizer
    from workbench.core.embeddings.bridge import EmbeddingInit
    from workbench.core.embeddings.evaluation import AnalogyReport
    from workbench.core.embeddings.vectors import WordVectors
    from workbench.core.generation.generate import GenerationResult
    from workbench.core.training.recipe import Recipe
    from workbench.core.training.runs import RunRecord

T = TypeVar("T")
Neighbours = list[tuple[str, str, float]]  # (the word's form in the vocabulary, neighbour, cos)
Ranked = list[tuple[str, float]]  # (word, score), best first


@dataclass(frozen=True)
class Answer(Generic[T]):
    """An explorer question's answer, with the words found only in another case (vectors
    trained on lowercased text know 'romeo', not the 'Romeo' typed): typed -> form used."""

    value: T
    forms: dict[str, str] = field(default_factory=dict)


class CorpusOptions(TypedDict, total=False):
    """How to read a corpus: `CorpusApi.load_job`'s keywords (the Corpus panel's filter,
    encoding, cleaning and size limit)."""

    glob: str | None
    encoding: str | None
    cleaning: CleaningConfig | None
    max_mb: int | None


class CorpusApi(Protocol):
    def load_job(self, path: str | Path, glob: str | None = None,
                 encoding: str | None = None, cleaning: CleaningConfig | None = None,
                 max_mb: int | None = None) -> JobSpec[Corpus]:
        """Read a file or folder into a `Corpus` with its statistics, cleaned by `cleaning`
        (Gutenberg header and footer, markup, control characters, an exclude pattern); the
        corpus says what was removed and what could still be."""
        ...

    def tokenize_job(self, corpus: Corpus,
                     config: TokenizerConfig | None = None) -> JobSpec[TokenizedCorpus]:
        """Train a tokenizer on the corpus and split its ids."""
        ...


class EmbeddingsApi(Protocol):
    """Word vectors: training, maps, files, and the explorer's questions. Every question is a
    job, so a 100k-word matrix is never multiplied on the GUI thread."""

    def train_job(self, corpus: Corpus, config: EmbeddingConfig) -> JobSpec[WordVectors]: ...

    def map_job(self, vectors: WordVectors, method: str, seed: int = 1,
                axes: Sequence[str] = ()) -> JobSpec[np.ndarray]:
        """2-D coordinates (N, 2) by "pca", "tsne", "umap", or "axes" (x = b − a, y = d − c
        for `axes` = (a, b, c, d))."""
        ...

    def unavailable_map_methods(self) -> dict[str, str]:
        """Map methods this install lacks (method -> why): the installers leave UMAP out."""
        ...

    def import_job(self, path: str, fmt: str,
                   trust_code: bool = False) -> JobSpec[WordVectors]:
        """`trust_code`: the user confirmed that a gensim native file (a pickle) may run code."""
        ...

    def export_job(self, vectors: WordVectors, path: str, fmt: str) -> JobSpec[list[str]]:
        """Write the vectors; the result lists the files written."""
        ...

    def neighbours_job(self, vectors: WordVectors, words: Sequence[str],
                       k: int) -> JobSpec[Answer[Neighbours]]: ...

    def analogy_job(self, vectors: WordVectors, a: str, b: str, c: str, k: int,
                    method: str) -> JobSpec[Answer[Ranked]]: ...

    def similarity_job(self, vectors: WordVectors, a: str, b: str
                       ) -> JobSpec[Answer[float]]: ...

    def odd_one_out_job(self, vectors: WordVectors, words: Sequence[str]
                        ) -> JobSpec[Answer[str]]: ...

    def feature_table_job(self, vectors: WordVectors, words: Sequence[str],
                          axes: Sequence[tuple[str, str]]) -> JobSpec[Answer[np.ndarray]]: ...

    def user_analogies_job(self, vectors: WordVectors, text: str,
                           method: str) -> JobSpec[list[tuple[str, str, bool]]]: ...

    def analogy_report_job(self, vectors: WordVectors,
                           path: str | None = None) -> JobSpec[AnalogyReport]: ...

    def embedding_init_job(self, vectors: WordVectors, tokenizer: Tokenizer,
                           freeze: bool) -> JobSpec[EmbeddingInit]:
        """The input-embedding rows for `tokenizer`'s vocabulary, with the coverage report."""
        ...


class InspectionApi(Protocol):
    """Probes, generation and checkpoints: all on snapshots, never on the live model."""

    def probe_job(self, snapshot: Snapshot, text: str, gradients: bool = True,
                  top_k: int = 5) -> JobSpec[Trace]: ...

    def generation_job(self, snapshot: Snapshot, prompt: str, config: GenerationConfig,
                       clamp: dict | None = None) -> JobSpec[GenerationResult]:
        """Streams `TokenGenerated` events. A clamp on a layer, unit or head the snapshot's
        model does not have is refused here (UserFacingError naming the valid range)."""
        ...

    def load_checkpoint_job(self, path: str | Path) -> JobSpec[Snapshot]: ...

    def export_hf_job(self, snapshot: Snapshot, folder: str | Path) -> JobSpec[str]:
        """Write the snapshot's model as a Hugging Face folder of its family, GPT-2, Llama
        or BERT (its path)."""
        ...

    def answer_job(self, snapshot: Snapshot, texts: list[str] | str,
                   settings: dict[str, Any] | None = None
                   ) -> JobSpec[Prediction | list[Prediction]]:
        """An encoder task's answer to each text (a classify/tag/fill-mask prediction of
        core.predictions); one text gives one answer, a list a list. `settings`: the task's
        (a tagger's {"words": [...]}, to tag words split as the data splits them)."""
        ...

    def test_sentence_job(self, snapshot: Snapshot, seed: int) -> JobSpec[tuple[list, list]]:
        """(words, gold tags) of a sentence of a tagging snapshot's data."""
        ...


class ModelsApi(Protocol):
    def architectures(self) -> list[tuple[str, str, type[ModelConfig]]]:
        """(arch, title, config type) of every registered architecture."""
        ...

    def describe_job(self, config: ModelConfig, batch_size: int = 32,
                     seq_len: int | None = None) -> JobSpec[ModelSummary]: ...

    def matched_size_job(self, config: ModelConfig,
                         target: ModelConfig) -> JobSpec[MatchedSize]: ...

    def folder_config_job(self, path: str,
                          task: str = "language_model") -> JobSpec[ModelConfig]:
        """The model a run of `task` that starts from a Hugging Face model folder trains, as
        the app's config: a language model's whole model, an encoder task's encoder (the
        part the Architecture panel designs); a folder of the other kind fails, saying why."""
        ...


class TrainingApi(Protocol):
    """Training runs and the run folders they write (results of train jobs: the run folder)."""

    def recipe_of(self, corpus: Corpus | None, tokens: TokenizedCorpus | None,
                  model_config: ModelConfig, training: TrainingConfig, name: str = "",
                  task: TaskConfig | None = None) -> Recipe: ...

    def train_job(self, corpus: Corpus | None, tokens: TokenizedCorpus | None,
                  model_config: ModelConfig, training: TrainingConfig, name: str = "",
                  embedding_init: EmbeddingInit | None = None,
                  task: TaskConfig | None = None) -> JobSpec[str]: ...

    def recipe_job(self, recipe: Recipe, training: TrainingConfig | None = None
                   ) -> JobSpec[str]: ...

    def resume_job(self, run_dir: str | Path, max_steps: int | None = None,
                   extend_to: int | None = None) -> JobSpec[str]: ...

    def checkpoint_snapshot_job(self, run_dir: str | Path,
                                kind: str = "best") -> JobSpec[Snapshot]: ...

    def test_job(self, run_dir: str | Path) -> JobSpec[TestLogged]:
        """Score a run's best checkpoint on its test split (off the GUI thread)."""
        ...

    def follow_job(self, run_dir: str | Path, wake: threading.Event | None = None,
                   poll_s: float | None = None) -> JobSpec[None]: ...

    def load_recipe(self, path: str | Path) -> Recipe: ...

    def save_recipe_job(self, path: str | Path, recipe: Recipe,
                        corpus: Corpus | None = None) -> JobSpec[str]: ...

    def read_run_job(self, path: str | Path) -> JobSpec[RunRecord]: ...

    def runs_root(self) -> Path: ...

    def list_runs(self) -> list[tuple[Path, str]]:
        """Run folders in the runs directory, oldest first, with the name to show."""
        ...

    def describe_run(self, path: str | Path) -> str:
        """What a run trains, from its recipe ('LSTM, 1 layer × 256, on shakespeare-small (char
        tokens), 2,000 steps'); '' when it has none. Quick: one small file."""
        ...

    def update_run(self, path: str | Path, **settings: str) -> None:
        """Keep a run's display name or colour (a small JSON file in its folder)."""
        ...


class Seq2seqApi(Protocol):
    """Sequence-to-sequence snapshots: probes for the Alignment and Attention views, decoding
    for the console (a language-model snapshot is refused with a UserFacingError)."""

    def default_probe(self, snapshot: Snapshot | None) -> str:
        """'input → expected output' for the snapshot's built-in task, or ''."""
        ...

    def probe_job(self, snapshot: Snapshot, text: str,
                  max_length: int = 64) -> JobSpec[Seq2seqTrace]: ...

    def decode_job(self, snapshot: Snapshot, text: str,
                   settings: Seq2seqDecodeConfig) -> JobSpec[DecodeResult]:
        """Streams `DecodedToken` events, one per output token."""
        ...


class Backend(Protocol):
    """Everything the window may ask, one attribute per domain."""

    corpus: CorpusApi
    embeddings: EmbeddingsApi
    inspection: InspectionApi
    models: ModelsApi
    training: TrainingApi
    seq2seq: Seq2seqApi
