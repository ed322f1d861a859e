"""A task that is not language modelling, for the distributed tests: tag each digit of a padded
sequence as above 4 or not. Its loss is the mean over the real (unpadded) digits, so the ranks'
shares of a batch hold different numbers of loss terms: one process with batch N·B and N ranks
with batch B agree only when the trainer weighs each rank by its terms (`Task.loss_weight`).

Run under torchrun as a script (`torchrun --nproc-per-node 2 distributed_toy.py OUT BATCH
STEPS`) or call `train(out, batch, steps)` in one process.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from workbench.core.config.fields import param, range_problems
from workbench.core.config.tasks import TASK_CONFIGS, Curve, register_task_config
from workbench.core.config.training import TrainingConfig
from workbench.core.jobs import JobControl, UserFacingError, drive, run_to_end
from workbench.core.snapshot import Snapshot
from workbench.core.tasks import Batch, Evaluation, Task, register_task
from workbench.core.tasks.base import _TASKS
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training_loop.trainer import TrainRequest, train_job

LENGTH = 6


@dataclass
class ToyTagConfig:
    name: ClassVar[str] = "toy_tag"
    title: ClassVar[str] = "Toy: tag digits above 4"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar = (Curve("val_loss", "Loss", train="loss"),)
    inspectors: ClassVar = ()
    examples: int = param(96, "Examples", "how many", min=8, max=10_000)

    def problems(self):
        return range_problems(self)


@dataclass
class ToyTaggerConfig:
    arch = "toy_tagger"
    hidden: int = 8

    def problems(self):
        return []


class ToyTagger(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(10, config.hidden)
        self.out = nn.Linear(config.hidden, 2)

    def forward(self, digits):
        return self.out(torch.tanh(self.embed(digits)))  # (B, T, 2)


class ToyTagTask(Task):
    name = "toy_tag"

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        rng = np.random.default_rng(1)
        lengths = rng.integers(1, LENGTH + 1, size=config.examples)
        mask = np.arange(LENGTH)[None, :] < lengths[:, None]
        digits = np.where(mask, rng.integers(0, 10, size=mask.shape), 0)
        yield from ()
        return digits, mask

    def vocabulary(self):
        return {"kind": "digits"}

    def build_model(self, model_config, build):
        return build(model_config)

    def start(self, model, training, device):
        self.size, self.device = training.batch_size, device

    def batch(self, step):
        digits, mask = self.data
        rows = np.random.default_rng([3, step]).integers(0, len(digits), size=self.size)
        return Batch({"digits": digits[rows], "mask": mask[rows]}, tokens=int(mask[rows].sum()))

    def loss_weight(self, batch):
        return float(batch["mask"].sum())  # the loss is a mean over the real digits

    def loss(self, model, batch, carry):
        logits = model(batch["digits"])
        tags = (batch["digits"] > 4).long()
        return F.cross_entropy(logits[batch["mask"]], tags[batch["mask"]]), None

    @torch.no_grad()
    def evaluate(self, model, amp):
        digits, mask = (torch.from_numpy(a) for a in self.data)
        logits = model(digits)
        tags = (digits > 4).long()
        return Evaluation(float(F.cross_entropy(logits[mask], tags[mask])))

    def preview(self, model, step):
        return f"step {step}"

    @classmethod
    def predict(cls, model, vocabulary, text, settings):
        raise UserFacingError("no console")


def snapshot_toy(model, vocabulary, step, metrics, run_name):
    weights = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    return Snapshot({"arch": "toy_tagger"}, weights, vocabulary, step, dict(metrics), run_name)


def register() -> None:
    register_task_config(ToyTagConfig)
    register_task(ToyTagTask)


def unregister() -> None:
    TASK_CONFIGS.pop(ToyTagConfig.name, None)
    _TASKS.pop(ToyTagTask.name, None)


def train(out: Path, batch_size: int, steps: int, distributed=None) -> list:
    out.mkdir(parents=True, exist_ok=True)
    data = run_to_end(ToyTagTask.examples(ToyTagConfig(), None, JobControl()))
    training = TrainingConfig(max_steps=steps, batch_size=batch_size, eval_every=5, log_every=1,
                              sample_every=0, checkpoint_every=10, warmup_steps=2, lr=0.05,
                              threads=1, schedule="constant")
    request = TrainRequest(data, ToyTaggerConfig(), training, run_dir=out, run_name="toy",
                           task=ToyTagConfig(), hooks=ModelHooks(ToyTagger, snapshot_toy),
                           gui=False, distributed=distributed)
    return list(drive(train_job(request), JobControl()))


if __name__ == "__main__":
    from workbench.core.distributed.env import leave_rank, torchrun_env

    register()
    events = train(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), torchrun_env())
    if type(events[-1]).__name__ != "JobFinished":
        print(f"{events[-1]}", file=sys.stderr)
        leave_rank(1)
    leave_rank(0)
