"""The one fake backend the Qt tests and the panel gallery use: every domain of
`workbench.core.api.Backend`, no torch.

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

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

from workbench.core.config.models import MODEL_CONFIGS
from workbench.core.config.summary import LayerRow, MatchedSize, ModelSummary
from workbench.core.config.tasks import TASK_CONFIGS
from workbench.core.events import (
    Event,
    JobFinished,
    Progress,
    TokenGenerated,
    TokensGenerated,
)
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.qt.gallery.fake_data import FakeCorpus, FakeEmbeddings
from workbench.qt.gallery.fake_seq2seq import FakeSeq2seq
from workbench.qt.gallery.fake_traces import finished, lstm_trace, snapshot, transformer_trace
from workbench.qt.gallery.fake_training import FakeTraining


@dataclass
class FakeInspection:
    """Answers probe requests with hand-made traces of the snapshot's architecture."""

    probes: list = field(default_factory=list)
    generations: list = field(default_factory=list)
    asked: list = field(default_factory=list)  # (task, texts, settings) of each answer_job
    exported: list = field(default_factory=list)  # folders of each export_hf_job

    def answer_job(self, snapshot, texts, settings=None):
        """An encoder snapshot's made-up answers (gallery/fake_encoder.py)."""
        from workbench.qt.gallery.fake_encoder import answer

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


class FakeModels:
    """A two-row summary of any configuration, at once."""

    def __init__(self) -> None:
        self.described: list = []

    def architectures(self):
        return [(arch, cls.title, cls) for arch, cls in MODEL_CONFIGS.items()]

    def describe_job(self, config, batch_size=32, seq_len=None):
        self.described.append(config)
        # the middle row is of the chosen family, so the cards and figures drawn from a
        # summary's layer kinds are the ones the window shows for it (a block: a transformer's)
        middle = (LayerRow("block 1", "Block", "(None, T, 8)", 120, 120)
                  if "transformer" in config.arch else
                  LayerRow("layer 1", "LSTM", "(None, T, 8)", 120, 120))
        rows = (LayerRow("embedding", "Embedding", "(None, T, 8)", 80, 80), middle,
                LayerRow("head (Linear)", "Linear", "(None, T, 10)", 90, 90))
        return finished(ModelSummary(config.arch, config.title, rows, 290, 290, batch_size,
                                     seq_len or 128, 1000, 200))

    def matched_size_job(self, config, target):
        return finished(MatchedSize(config.arch, ("hidden_size",), 64, 1000, target.arch, 1000))

    def folder_config_job(self, path, task="language_model"):
        """Any folder holds a small GPT-2 (its own sizes and 320 tokens) for a language model,
        a small BERT's encoder (120 tokens) for an encoder task."""
        from workbench.core.config.models import TransformerConfig, TransformerEncoderConfig

        if TASK_CONFIGS[task].encoder_head:
            return finished(TransformerEncoderConfig(
                vocab_size=120, d_model=32, num_heads=4, num_layers=2, d_ff=37,
                context_length=64, dropout=0.0, positional="learned", norm_placement="post",
                activation="gelu", embedding_norm=True, norm_eps=1e-12))
        return finished(TransformerConfig(vocab_size=320, d_model=32, num_heads=4, num_layers=2,
                                          d_ff=128, context_length=64, dropout=0.0,
                                          positional="learned", norm_placement="pre",
                                          tie_weights=True, activation="gelu_tanh",
                                          head_bias=False))


@dataclass
class FakeBackend:
    corpus: object = field(default_factory=FakeCorpus)
    embeddings: object = field(default_factory=FakeEmbeddings)
    inspection: object = field(default_factory=lambda: FakeInspection())
    models: object = field(default_factory=FakeModels)
    training: object = field(default_factory=FakeTraining)
    seq2seq: object = field(default_factory=FakeSeq2seq)
