"""The Training panel: live curves, runs, samples and controls (issue 4)."""

from workbench.qt.panels.training.panel import TrainingPanel

__all__ = ["TrainingPanel"]
