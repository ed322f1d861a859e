"""What the gallery shows in each panel: the panel's class and the canned state it is staged in.

A stage does what a user would (opens a snapshot, loads a text, trains, asks), against the fake
backend, so the panel draws from the same code paths as in the window. Every panel of the window
has an entry: tests/qt/test_gallery.py checks that against the window's own list.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.events import EvalLogged
from workbench.qt.gallery import fake_encoder, fake_seq2seq
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_data import corpus_of
from workbench.qt.gallery.fake_traces import snapshot
from workbench.qt.gallery.fake_training import FakeTraining
from workbench.qt.panel import Panel
from workbench.qt.panels.alignment import AlignmentPanel
from workbench.qt.panels.architecture import ArchitecturePanel
from workbench.qt.panels.attention import AttentionPanel
from workbench.qt.panels.classify_console import ClassifyConsolePanel
from workbench.qt.panels.confusion import ConfusionPanel
from workbench.qt.panels.corpus import CorpusPanel
from workbench.qt.panels.embeddings import EmbeddingsPanel
from workbench.qt.panels.fill_mask import FillMaskPanel
from workbench.qt.panels.gates import GatesPanel
from workbench.qt.panels.generate import GeneratePanel
from workbench.qt.panels.gradients import GradientsPanel
from workbench.qt.panels.lessons import LessonsPanel
from workbench.qt.panels.nexttoken import NextTokenPanel
from workbench.qt.panels.seq2seq_console import Seq2seqConsolePanel
from workbench.qt.panels.tagging import TaggingPanel
from workbench.qt.panels.training import TrainingPanel
from workbench.qt.panels.worked import WorkedExamplesPanel

# The corpus panel's canned text: the first lines of the shipped default corpus's Hamlet
HAMLET = """HAMLET
To be, or not to be, that is the question:
Whether 'tis nobler in the mind to suffer
The slings and arrows of outrageous fortune,
Or to take arms against a sea of troubles
And by opposing end them. To die: to sleep;
No more; and by a sleep to say we end
The heart-ache and the thousand natural shocks
That flesh is heir to, 'tis a consummation
Devoutly to be wish'd.
"""


@dataclass(frozen=True)
class Entry:
    """One panel of the gallery: where its class is, and how to stage it."""

    panel_type: type[Panel]
    stage: Callable[[Any], object] | None = None
    # what the staged panel shows once its jobs are over (checked by the tests, and the
    # gallery says so when it is false): a probe drawn, a run's curves, a decoded line
    shown: Callable[[Any], object] = lambda panel: True
    backend: Callable[[Path], FakeBackend] = lambda scratch: FakeBackend()
    size: tuple[int, int] = (1100, 700)


def _lm(arch: str) -> Callable[[Any], object]:
    return lambda panel: panel.controller.set_snapshot(snapshot(100, arch))


def _encoder(task: str) -> Callable[[Any], object]:
    return lambda panel: panel.controller.set_snapshot(fake_encoder.task_snapshot(task))


def _seq2seq(panel) -> None:
    panel.controller.set_snapshot(fake_seq2seq.snapshot(100))


def _decode(panel) -> None:
    _seq2seq(panel)
    panel.input.setText("".join(fake_seq2seq.SOURCE))  # what the canned alignment reads
    panel.decode()


def _generate(panel) -> None:
    panel.controller.set_snapshot(snapshot(300, "lstm"))
    panel.generate()


def _validations(panel) -> None:
    """Two validations of a classifier, the later one better (the panel shows the last)."""
    for step, confusion in ((50, [[30, 12, 8], [10, 25, 15], [5, 9, 36]]),
                            (100, [[41, 5, 4], [6, 38, 6], [3, 5, 42]])):
        event: EvalLogged = fake_encoder.evaluation(step, confusion, ("neg", "neutral", "pos"))
        panel.controller.job_event.emit(event)


def _trained(scratch: Path) -> FakeBackend:
    run_dir = scratch / "char-lstm-demo"
    run_dir.mkdir(parents=True, exist_ok=True)
    return FakeBackend(training=FakeTraining(run_dir))


def _train_vectors(panel) -> None:
    """Vectors trained (two canned epochs) on a corpus already loaded, then their map."""
    panel.controller.set_corpus(corpus_of(HAMLET, "hamlet.txt"))
    panel.train()


def _load_hamlet(panel) -> None:
    panel.controller.backend.corpus.texts["hamlet.txt"] = HAMLET
    panel.open_path("hamlet.txt")


def _probed(panel) -> bool:
    return panel.trace is not None


ENTRIES: dict[str, Entry] = {
    "corpus": Entry(CorpusPanel, _load_hamlet,
                    lambda panel: panel.controller.tokens is not None),
    "architecture": Entry(ArchitecturePanel,
                          shown=lambda panel: panel.summary is not None),
    "lessons": Entry(LessonsPanel, shown=lambda panel: len(panel.lessons) > 0),
    "embeddings": Entry(EmbeddingsPanel, _train_vectors,
                        lambda panel: panel.vectors is not None),
    "training": Entry(TrainingPanel, lambda panel: panel.start_training(),
                      lambda panel: len(panel.series) == 1, backend=_trained,
                      size=(1300, 700)),
    "gates": Entry(GatesPanel, _lm("lstm"), _probed),
    "attention": Entry(AttentionPanel, _lm("transformer"), _probed),
    "gradients": Entry(GradientsPanel, _lm("lstm"), _probed),
    "nexttoken": Entry(NextTokenPanel, _lm("lstm"), _probed),
    "generate": Entry(GeneratePanel, _generate,
                      lambda panel: panel.generated_text() != ""),
    "worked": Entry(WorkedExamplesPanel),
    "alignment": Entry(AlignmentPanel, _seq2seq, _probed),
    "seq2seq": Entry(Seq2seqConsolePanel, _decode,
                     lambda panel: len(panel.controller.backend.seq2seq.decodes) == 1),
    "confusion": Entry(ConfusionPanel, _validations,
                       lambda panel: "Step 100" in panel.status.text()),
    "classify": Entry(ClassifyConsolePanel, _encoder("classify"),
                      _probed),
    "tagging": Entry(TaggingPanel, _encoder("tag"), _probed),
    "fill_mask": Entry(FillMaskPanel, _encoder("masked_lm"), _probed),
}


def scratch_folder() -> Path:
    """Where a staged run writes its folder: a fresh temporary one, never the user's runs."""
    return Path(tempfile.mkdtemp(prefix="workbench-gallery-"))
