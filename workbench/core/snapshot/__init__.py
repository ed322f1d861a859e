"""A snapshot: a CPU copy of a model's weights plus what rebuilds it (torch-free).

The job thread that owns the live model takes snapshots at eval points or on demand; inspectors
and the generation console rebuild a private model from one, so nothing but the trainer ever
touches the live model. Weights are numpy arrays, so the Qt room may hold a snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Snapshot:
    model_config: dict[str, Any]  # config dict with its "arch" key (see core.config.models)
    weights: dict[str, np.ndarray]  # state_dict as numpy
    tokenizer: dict[str, Any]  # Tokenizer.to_dict()
    step: int = 0
    metrics: dict[str, float] = field(default_factory=dict)
    run_name: str = ""
    task: dict[str, Any] = field(default_factory=dict)  # task config dict; {} = language model
    run_dir: str = ""  # the run folder it comes from: what tells two runs apart, not the name

    @property
    def arch(self) -> str:
        return str(self.model_config.get("arch", ""))

    @property
    def task_name(self) -> str:
        return str(self.task.get("name", "language_model"))

    @property
    def pretrained(self) -> bool:
        """Opened from a Hugging Face model folder (core/pretrained), not trained here."""
        return self.tokenizer.get("kind") == "pretrained"

    @property
    def label(self) -> str:
        name = self.run_name or self.arch
        if self.pretrained and self.step == 0:
            return f"{name} (pretrained)"
        return f"{name} @ step {self.step}"
