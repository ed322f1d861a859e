"""What to train: the request a training job is made from (recipe_run.py, the window's
training backend, the headless CLI and torchrun all build one)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from workbench.core.config.tasks import LanguageModelTaskConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.distributed.env import TorchrunEnv
from workbench.core.training.evaluation import ModelHooks


@dataclasses.dataclass
class TrainRequest:
    """What to train. `data` is what the task's `examples` returned (a TokenizedCorpus for a
    language model); `task` its config (None: a language model). `run_dir` None makes a new run
    folder; `resume` continues its latest checkpoint."""

    data: Any
    model_config: Any
    training: TrainingConfig
    run_dir: Path | None = None
    run_name: str = "run"
    recipe_toml: str = ""
    resume: bool = False
    hooks: ModelHooks | None = None
    gui: bool = True  # a window shares the process: "auto" threads leave it a core
    task: Any = None
    distributed: TorchrunEnv | None = None  # set under torchrun: this process is one rank

    @property
    def task_config(self) -> Any:
        return self.task if self.task is not None else LanguageModelTaskConfig()
