"""The one fake backend the Qt tests use: every domain of `workbench.core.api.Backend`, no torch.

`FakeBackend()` answers every request of the window with small hand-made results (traces,
summaries, vectors, a recorded training run). A test that needs a real facade for one domain,
or a tuned fake, passes it: `FakeBackend(training=TrainingBackend())`,
`FakeBackend(corpus=FakeCorpus(gate=event))`. tests/qt/test_backend_protocols.py checks that
each fake implements its Protocol (names and parameters), as the real facades do, so a method
added to core/api.py must be added here too.

A new backend domain: add `FakeSomething` with every method of its Protocol and an attribute in
`FakeBackend.__init__`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tests.qt.seq2seq_fakes import FakeSeq2seq
from workbench.core.api import Answer
from workbench.core.config.models import MODEL_CONFIGS
from workbench.core.config.summary import LayerRow, MatchedSize, ModelSummary
from workbench.core.corpus.loading import Corpus
from workbench.core.events import (
    DivergenceHandled,
    EpochEnded,
    EvalLogged,
    Event,
    JobFinished,
    Progress,
    RunStarted,
    SampleGenerated,
    SnapshotReady,
    StepLogged,
    TokenGenerated,
    TokensGenerated,
)
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot
from workbench.core.trace import LayerTrace, Trace

PROBE = list("To be, or not")


def snapshot(step: int = 100, arch: str = "lstm", run_dir: str = "") -> Snapshot:
    """A snapshot of the shape the hand-made traces have (2 layers; 8 units or 4 heads)."""
    sizes = {"num_layers": 2, "num_heads": 4} if arch == "transformer" else {
        "num_layers": 2, "hidden_size": 8}
    return Snapshot(model_config={"arch": arch, **sizes}, weights={}, tokenizer={}, step=step,
                    run_name="demo", run_dir=run_dir)


def lstm_trace(step: int = 100, hidden: int = 6, seed: int = 0) -> Trace:
    """Two LSTM layers with gates in (0, 1), states in (-1, 1), and the probe's extras."""
    rng = np.random.default_rng(seed + step)
    t = len(PROBE)
    layers = []
    for index in range(2):
        values = {g: 1 / (1 + np.exp(-rng.normal(0, 2, (t, hidden)))) for g in "ifo"}
        values["g"] = np.tanh(rng.normal(0, 1, (t, hidden)))
        values["c"] = np.cumsum(values["i"] * values["g"], axis=0)
        values["h"] = values["o"] * np.tanh(values["c"])
        layers.append(LayerTrace(f"lstm{index}", "lstm", values))
    logits = rng.normal(0, 1, (t, 10))
    extras = {"step": np.array(step),
              "topk_ids": np.tile(np.arange(5), (t, 1)),
              "topk_probs": np.tile(np.array([0.4, 0.2, 0.1, 0.05, 0.05]), (t, 1)),
              "topk_text": np.array([list("etaoi")] * t, dtype=object),
              "token_loss": np.concatenate([[np.nan], np.linspace(0.5, 4.0, t - 1)]),
              "pca_path": np.stack([np.cos(np.arange(t)), np.sin(np.arange(t))], 1),
              "pca_explained": np.array([0.6, 0.3])}
    for layer in layers:
        for gate in "ifo":
            v = layer.values[gate]
            extras[f"saturation/{layer.name}/{gate}"] = np.stack(
                [(v < 0.1).mean(0), (v > 0.9).mean(0)], 1)
        decay = 0.8 if layer.name.endswith("0") else 0.6
        extras[f"grad_norm/{layer.name}"] = decay ** np.arange(t - 1)[::-1]
    return Trace(np.arange(t), PROBE, logits, layers, extras=extras)


def transformer_trace(step: int = 100, heads: int = 4, layers: int = 2, d: int = 16) -> Trace:
    rng = np.random.default_rng(step)
    t = len(PROBE)
    out = []
    extras = {"step": np.array(step)}
    for index in range(layers):
        scores = rng.normal(0, 1, (heads, t, t))
        scores[:, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = -np.inf
        attn = np.exp(scores - scores.max(-1, keepdims=True))
        attn /= attn.sum(-1, keepdims=True)
        name = f"block{index}"
        out.append(LayerTrace(name, "attention", {"attn": attn, "scores": scores,
                                                  "resid": rng.normal(0, 1, (t, d))}))
        extras[f"head_stats/{name}"] = rng.random((heads, 4))
    pos = np.arange(t)[:, None] / 10000 ** (2 * (np.arange(d)[None, :] // 2) / d)
    extras["positional"] = np.where(np.arange(d) % 2 == 0, np.sin(pos), np.cos(pos))
    return Trace(np.arange(t), PROBE, rng.normal(0, 1, (t, 10)), out, extras=extras)


def later(title: str, work) -> JobSpec:
    """A job whose result is `work()`, computed on the job's thread."""
    def job(control: JobControl) -> Iterator[Event]:
        yield JobFinished(result=work())
    return JobSpec(title, job)


def finished(result) -> JobSpec:
    def job(control: JobControl) -> Iterator[Event]:
        yield JobFinished(result=result)
    return JobSpec("fake", job)


@dataclass
class FakeInspection:
    """Answers probe requests with hand-made traces of the snapshot's architecture."""

    probes: list = field(default_factory=list)
    generations: list = field(default_factory=list)
    asked: list = field(default_factory=list)  # (task, texts, settings) of each answer_job
    exported: list = field(default_factory=list)  # folders of each export_hf_job

    def answer_job(self, snapshot, texts, settings=None):
        """An encoder snapshot's made-up answers (tests/qt/encoder_fakes.py)."""
        from tests.qt.encoder_fakes import answer

        self.asked.append((snapshot.task_name, texts, settings))
        return finished(answer(snapshot.task_name, texts, settings))

    def test_sentence_job(self, snapshot, seed):
        return finished((["The", "old", "man"], ["DET", "ADJ", "NOUN"]))

    def probe_job(self, snapshot, text, gradients=True, top_k=5):
        if not text.strip():
            raise UserFacingError("The probe text is empty. Type a sentence to probe the model.")
        self.probes.append((snapshot.step, text, gradients))
        make = transformer_trace if snapshot.arch == "transformer" else lstm_trace
        return finished(replace(make(snapshot.step)))

    def load_checkpoint_job(self, path):
        return finished(snapshot(step=999))

    def export_hf_job(self, snapshot, folder):
        self.exported.append(str(folder))
        return finished(str(folder))

    def generation_job(self, snapshot, prompt, config, clamp=None):
        self.generations.append((prompt, config, clamp))
        words = ["the", " king", " is", " dead", "."]

        def job(control: JobControl) -> Iterator[Event]:
            if config.strategy == "beam":  # as the real job: progress while the beams grow
                yield Progress(1, config.max_tokens,
                               f"Beam search: 1 of {config.max_tokens} tokens; best so far '<the'")
            tokens = [TokenGenerated(i, 10 + i, w, 0.5 / (i + 1), 1.0 + i, i,
                                     ((w, 0.5 / (i + 1)), ("x", 0.1)))
                      for i, w in enumerate(words[: config.max_tokens])]
            yield TokensGenerated(tuple(tokens[:1]))  # as the real job: the first at once,
            yield TokensGenerated(tuple(tokens[1:]))  # then the rest in batches
            text = "".join(words[: config.max_tokens])
            yield JobFinished(result=SimpleNamespace(prompt=prompt, text=text,
                                                     stopped_by="length"))
        return JobSpec("Generate", job)




# --- corpus -----------------------------------------------------------------------------------


def corpus_of(text: str, name: str = "fake") -> Corpus:
    return Corpus(name, name, [(name, text)], size_bytes=len(text.encode()))


class FakeCorpus:
    """Loads `texts[path]` (or a line naming the path) as a Corpus in three Progress steps,
    each waiting for `gate` when one is given; tokenizing is the real, torch-free core job."""

    def __init__(self, gate: threading.Event | None = None, texts: dict | None = None) -> None:
        self.gate, self.texts, self.loaded = gate, texts or {}, []

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


# --- embeddings -------------------------------------------------------------------------------


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
        from workbench.core.embeddings.evaluation import user_analogies

        return finished(user_analogies(vectors, text, method))

    def analogy_report_job(self, vectors, path=None):
        return finished(SimpleNamespace(total=0, scored=0, oov=0, accuracy=float("nan")))

    def embedding_init_job(self, vectors, tokenizer, freeze):
        from workbench.core.embeddings.bridge import embedding_init

        return finished(embedding_init(vectors, tokenizer, freeze))


# --- models -----------------------------------------------------------------------------------


class FakeModels:
    """A two-row summary of any configuration, at once."""

    def __init__(self) -> None:
        self.described: list = []

    def architectures(self):
        return [(arch, cls.title, cls) for arch, cls in MODEL_CONFIGS.items()]

    def describe_job(self, config, batch_size=32, seq_len=None):
        self.described.append(config)
        rows = (LayerRow("embedding", "Embedding", "(None, T, 8)", 80, 80),
                LayerRow("head (Linear)", "Linear", "(None, T, 10)", 90, 90))
        return finished(ModelSummary(config.arch, config.title, rows, 170, 170, batch_size,
                                     seq_len or 128, 1000, 200))

    def matched_size_job(self, config, target):
        return finished(MatchedSize(config.arch, ("hidden_size",), 64, 1000, target.arch, 1000))

    def folder_config_job(self, path):
        """Any folder holds a small GPT-2: its own sizes and 320 tokens."""
        from workbench.core.config.models import TransformerConfig

        return finished(TransformerConfig(vocab_size=320, d_model=32, num_heads=4, num_layers=2,
                                          d_ff=128, context_length=64, dropout=0.0,
                                          positional="learned", norm_placement="pre",
                                          tie_weights=True, activation="gelu_tanh",
                                          head_bias=False))


# --- training ---------------------------------------------------------------------------------


def recorded_run(run_dir: str, steps: int = 100) -> list:
    """Events as the trainer yields them: a falling loss, two evaluations, one rollback."""
    events = [RunStarted(run_dir, "recorded")]
    for step in range(10, steps + 1, 10):
        loss = 4.0 * math.exp(-step / 60) + 1.0
        events.append(StepLogged(step, loss, 1e-3, 0.5, step == 10, step * 256, 5000.0,
                                 step / 10, clip_rate=0.1))
        events.append(Progress(step, steps, f"Step {step}"))
        if step == 50:
            events.append(EvalLogged(50, 2.5, math.exp(2.5), 2.5 / math.log(2), 50 * 256, 5.0))
            events.append(SnapshotReady(Snapshot({"arch": "lstm"}, {}, {}, step=50)))
            events.append(SampleGenerated(50, "To be, or not to be"))
        if step == 70:
            events.append(DivergenceHandled(70, "loss is nan", 5e-4, 1, resumed_at=60))
    events.append(EvalLogged(steps, 1.6, math.exp(1.6), 1.6 / math.log(2), steps * 256, 10.0))
    events.append(JobFinished(result=run_dir))
    return events


class FakeTraining:
    """'Training' replays `recorded_run` into `run_dir` (a pause of `delay` s between events);
    run folders are read and written with the real, torch-free core functions."""

    def __init__(self, run_dir: str | Path = "", delay: float = 0.0) -> None:
        self.run_dir, self.delay = str(run_dir), delay
        self.started = 0
        self.embedding_init = None
        self.trained: list = []  # what each start was asked to train: a Recipe or train_job's

    def _replay(self, title: str) -> JobSpec:
        def job(control):
            for event in recorded_run(self.run_dir):
                time.sleep(self.delay)
                yield event
        return JobSpec(title, job)

    def recipe_of(self, corpus, tokens, model_config, training, name="", task=None):
        from workbench.core.training.recipe import Recipe

        kept = {"task": task} if task is not None else {}
        return Recipe(name or f"char-{model_config.arch}", "", model_config, training=training,
                      **kept)

    def train_job(self, corpus, tokens, model_config, training, name="", embedding_init=None,
                  task=None):
        self.started += 1
        self.embedding_init = embedding_init
        self.trained.append(self.recipe_of(corpus, tokens, model_config, training, name, task))
        return self._replay("Training recorded")

    def recipe_job(self, recipe, training=None):
        self.started += 1
        self.trained.append(recipe)
        return self._replay(f"Training {recipe.name}")

    def resume_job(self, run_dir, max_steps=None, extend_to=None):
        self.started += 1
        return self._replay(f"Resuming {Path(run_dir).name}")

    def checkpoint_snapshot_job(self, run_dir, kind="best"):
        def job(control):
            if not (Path(run_dir) / "checkpoints" / f"{kind}.json").is_file():
                raise UserFacingError(f"{Path(run_dir).name} has no {kind} checkpoint yet.")
            yield JobFinished(result=snapshot(step=100))
        return JobSpec(f"Opening {kind} checkpoint", job)

    def test_job(self, run_dir):
        """The test figure of a recorded run's best checkpoint, as the real job's result."""
        from workbench.core.events import TestLogged

        def job(control):
            if not (Path(run_dir) / "checkpoints" / "best.json").is_file():
                raise UserFacingError(f"{Path(run_dir).name} has no best checkpoint to test.")
            yield JobFinished(result=TestLogged(step=100, test_loss=1.5, checkpoint_step=100))
        return JobSpec(f"Testing {Path(run_dir).name}", job)

    def follow_job(self, run_dir, wake=None, poll_s=None):
        def job(control):
            while not control.stop_requested:
                control.check()
                time.sleep(0.02)
            yield JobFinished()
        return JobSpec(f"Following {Path(run_dir).name}", job)

    def load_recipe(self, path):
        from workbench.core.training.recipe import load_recipe

        return load_recipe(path)

    def save_recipe_job(self, path, recipe, corpus=None):
        from workbench.core.training.recipe import save_recipe

        return later("Saving", lambda: str(save_recipe(recipe, path)))

    def read_run_job(self, path):
        from workbench.core.training import runs

        return later("Opening", lambda: runs.read_run(path))

    def runs_root(self):
        return Path(self.run_dir or ".")

    def list_runs(self):
        return []

    def describe_run(self, path):
        from workbench.core.training import runs

        return runs.describe_run(Path(path))

    def update_run(self, path, **settings):
        from workbench.core.training import runs

        runs.write_settings(Path(path), **settings)


@dataclass
class FakeBackend:
    corpus: object = field(default_factory=FakeCorpus)
    embeddings: object = field(default_factory=FakeEmbeddings)
    inspection: object = field(default_factory=lambda: FakeInspection())
    models: object = field(default_factory=FakeModels)
    training: object = field(default_factory=FakeTraining)
    seq2seq: object = field(default_factory=FakeSeq2seq)
