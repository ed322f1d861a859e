"""The panels the window shows, in dock order. Each issue adds its panels here."""

from __future__ import annotations

from workbench.qt.panel import Panel


def panel_types() -> list[type[Panel]]:
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

    return [CorpusPanel, ArchitecturePanel, LessonsPanel, EmbeddingsPanel, TrainingPanel,
            GatesPanel, AttentionPanel, GradientsPanel, NextTokenPanel, GeneratePanel,
            WorkedExamplesPanel, AlignmentPanel, Seq2seqConsolePanel, ConfusionPanel,
            ClassifyConsolePanel, TaggingPanel, FillMaskPanel]
