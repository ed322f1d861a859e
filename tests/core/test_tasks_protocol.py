"""The task layer: a task registered from outside trains through the unchanged trainer, its
metrics and structured results reach the run log and come back; recipes and checkpoints record
the task; run folders and recipes from before tasks existed still read as language models."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from training_fixtures import events_of, of_type, tiny_request

from workbench.core.config.fields import param, range_problems
from workbench.core.config.tasks import (
    TASK_CONFIGS,
    Curve,
    LanguageModelTaskConfig,
    headline,
    register_task_config,
    task_config_from_dict,
)
from workbench.core.config.training import TrainingConfig
from workbench.core.events import EvalLogged, JobFinished, RunStarted, SnapshotReady, StepLogged
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.tasks import Batch, Evaluation, Task, register_task
from workbench.core.tasks.base import _TASKS
from workbench.core.training import runs
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.recipe import Recipe, parse_recipe, recipe_to_toml
from workbench.core.training_loop.trainer import TrainRequest, train_job


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


@pytest.fixture(autouse=True)
def toy_task_registered():
    """Register the toy task for a test only (other tests list the registered tasks)."""
    register_task_config(ParityConfig)
    register_task(ToyDigitTask)
    yield
    TASK_CONFIGS.pop(ParityConfig.name)
    _TASKS.pop(ToyDigitTask.name)


# --- a toy task defined here, as another engineer would: is the first digit above 4? --------

@dataclass
class ParityConfig:
    name: ClassVar[str] = "toy_digit"
    title: ClassVar[str] = "Toy: first digit above 4"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar = (Curve("val_loss", "Loss", train="loss"),
                        Curve("accuracy", "Accuracy", log_ok=False, unit="percent",
                              short="accuracy"))
    inspectors: ClassVar = ()
    examples: int = param(64, "Examples", "how many", min=8, max=10_000)

    def problems(self):
        return range_problems(self)


@dataclass
class ToyModelConfig:
    arch = "toy"
    hidden: int = 8

    def problems(self):
        return []


class ToyClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(10, config.hidden)
        self.out = nn.Linear(config.hidden, 2)

    def forward(self, digits, mask):
        pooled = (self.embed(digits) * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return self.out(pooled)


class ToyDigitTask(Task):
    name = "toy_digit"

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        rng = np.random.default_rng(0)
        lengths = rng.integers(1, 5, size=config.examples)
        digits = np.zeros((config.examples, 4), dtype=np.int64)
        mask = np.arange(4)[None, :] < lengths[:, None]
        digits[mask] = rng.integers(0, 10, size=int(mask.sum()))
        yield from ()
        return digits, mask, (digits[:, 0] > 4).astype(np.int64)

    def vocabulary(self):
        return {"kind": "digits"}

    def build_model(self, model_config, build):
        return build(model_config)

    def start(self, model, training, device):
        self.size = training.batch_size

    def batch(self, step):
        digits, mask, labels = self.data
        rows = np.random.default_rng([7, step]).integers(0, len(labels), size=self.size)
        return Batch({"digits": digits[rows], "mask": mask[rows], "labels": labels[rows]},
                     tokens=int(mask[rows].sum()))

    def loss(self, model, batch, carry):
        logits = model(batch["digits"], batch["mask"].float())
        return F.cross_entropy(logits, batch["labels"]), None

    @torch.no_grad()
    def evaluate(self, model, amp):
        digits, mask, labels = (torch.from_numpy(a) for a in self.data)
        logits = model(digits, mask.float())
        right = (logits.argmax(-1) == labels).float()
        by_length = [float(right[mask.sum(1) == n].mean()) for n in range(1, 5)]
        return Evaluation(float(F.cross_entropy(logits, labels)),
                          {"accuracy": float(right.mean())},
                          {"accuracy_by_length": {"length": np.arange(1, 5),
                                                  "accuracy": np.array(by_length)}})

    def preview(self, model, step):
        return f"step {step}"

    @classmethod
    def predict(cls, model, vocabulary, text, settings):
        raise UserFacingError("no console")



def toy_request(tmp_path, **changes):
    settings = dict(max_steps=30, batch_size=16, eval_every=10, log_every=5, sample_every=15,
                    checkpoint_every=10, warmup_steps=2, lr=0.05, threads=1)
    settings.update(changes)
    data = list(drive_examples(ParityConfig()))
    return TrainRequest(data[-1], ToyModelConfig(), TrainingConfig(**settings),
                        run_name="toy", task=ParityConfig(),
                        hooks=ModelHooks(ToyClassifier, snapshot_toy))


def drive_examples(config):
    steps = ToyDigitTask.examples(config, None, JobControl())
    try:
        while True:
            next(steps)
    except StopIteration as done:
        yield done.value


def snapshot_toy(model, vocabulary, step, metrics, run_name):
    from workbench.core.snapshot import Snapshot

    weights = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    return Snapshot({"arch": "toy"}, weights, vocabulary, step, dict(metrics), run_name)


def test_a_new_task_trains_through_the_trainer_and_logs_its_metrics(tmp_path):
    events = events_of(toy_request(tmp_path))
    assert isinstance(events[-1], JobFinished), events[-1]
    assert of_type(events, RunStarted)[0].task == "toy_digit"
    evals = of_type(events, EvalLogged)
    assert [e.step for e in evals] == [10, 20, 30]
    assert evals[-1].metric("accuracy") > 0.7 and evals[-1].val_loss < evals[0].val_loss
    assert math.isnan(evals[-1].perplexity)
    table = evals[-1].results["accuracy_by_length"]
    assert list(table["length"]) == [1, 2, 3, 4]
    snapshot = of_type(events, SnapshotReady)[-1].snapshot
    assert snapshot.task["name"] == "toy_digit" and snapshot.task_name == "toy_digit"
    assert set(snapshot.metrics) == {"val_loss", "accuracy"}
    # the run log keeps the metrics and the structured results (arrays as lists)
    record = runs.read_run(events[-1].result)
    logged = [e for e in record.events if isinstance(e, EvalLogged)]
    assert logged[-1].metric("accuracy") == evals[-1].metric("accuracy")
    assert logged[-1].results["accuracy_by_length"]["accuracy"] == list(table["accuracy"])
    saved = load_checkpoint(tmp_path / "runs" / record.path.name / "checkpoints" / "latest.json")
    assert saved.meta["task"] == {"name": "toy_digit", "examples": 64}
    assert saved.meta["tokenizer"] == {"kind": "digits"}
    assert headline("toy_digit", logged[-1].metrics).startswith("accuracy ")


def test_tokens_seen_count_the_real_tokens_of_each_batch(tmp_path):
    request = toy_request(tmp_path)
    steps = of_type(events_of(request), StepLogged)
    expected, task = 0, ToyDigitTask(ParityConfig(), request.data)
    task.start(None, request.training, None)
    for step in range(30):
        expected += task.batch(step).tokens
    assert steps[-1].tokens_seen == expected


def test_a_language_model_checkpoint_records_its_task(tmp_path):
    events = events_of(tiny_request(tmp_path, max_steps=10, eval_every=10))
    run_dir = events[-1].result
    saved = load_checkpoint(f"{run_dir}/checkpoints/latest.json")
    assert saved.meta["task"] == {"name": "language_model", "teacher_forcing": 1.0,
                                  "start_from": ""}
    assert saved.meta["tokenizer"]["kind"] == "char"
    started = of_type(events, RunStarted)[0]
    assert started.task == "language_model"
    # the threshold the curves draw on ‖g‖₂, from the run's own training settings (a folder
    # read back has it from its recipe: test_an_old_run_folder_reads_as_a_language_model)
    assert started.grad_clip == tiny_request(tmp_path).training.grad_clip > 0
    evals = of_type(events, EvalLogged)
    assert set(evals[0].metrics) == {"val_loss", "perplexity", "bits"}
    assert evals[0].perplexity == pytest.approx(math.exp(evals[0].val_loss))


def test_an_old_run_folder_reads_as_a_language_model(tmp_path):
    """metrics.jsonl as the code before tasks wrote it (no metrics, no results)."""
    (tmp_path / "metrics.jsonl").write_text(json.dumps(
        {"event": "eval", "step": 100, "val_loss": 2.0, "perplexity": math.exp(2.0),
         "bits_per_token": 2.0 / math.log(2), "tokens_seen": 800, "elapsed_s": 3.0}) + "\n")
    (tmp_path / "recipe.toml").write_text('[corpus]\nresource = "x"\n[model]\narch = "gru"\n')
    record = runs.read_run(tmp_path)
    assert record.task == "language_model" and record.skipped_lines == 0
    assert record.grad_clip == 1.0  # a recipe without the setting trained with the default
    (tmp_path / "recipe.toml").write_text('[training]\ngrad_clip = 0\n')
    assert runs.read_run(tmp_path).grad_clip == 0.0  # no clipping: no line
    event = record.events[0]
    assert event.metrics == {"val_loss": 2.0, "perplexity": math.exp(2.0),
                             "bits": 2.0 / math.log(2)}
    assert event.metric("exact_match") != event.metric("exact_match")  # nan: not measured


def test_recipes_without_a_task_table_are_language_model_recipes():
    recipe = parse_recipe('[corpus]\nresource = "x"\n[model]\narch = "gru"\n')
    assert isinstance(recipe.task, LanguageModelTaskConfig)
    text = recipe_to_toml(recipe)
    assert '[task]\nname = "language_model"' in text
    assert parse_recipe(text) == recipe


def test_a_task_with_its_own_data_needs_no_corpus_and_round_trips():
    recipe = parse_recipe('[task]\nname = "toy_digit"\nexamples = 32\n[model]\narch = "gru"\n')
    assert recipe.task == ParityConfig(examples=32) and recipe.corpus_path == ""
    text = recipe_to_toml(recipe)
    assert "[corpus]" not in text
    assert parse_recipe(text) == recipe
    assert recipe_to_toml(Recipe("r", "", recipe.model, task=recipe.task)) == recipe_to_toml(
        Recipe("r", "", recipe.model, task=ParityConfig(examples=32)))


@pytest.mark.parametrize("text, message", [
    ('[task]\nname = "juggling"\n[model]\narch = "gru"\n',
     r"\[task\] name: unknown task 'juggling'"),
    ('[task]\nname = "toy_digit"\nexamples = 2\n[model]\narch = "gru"\n',
     r"\[task\]: 'examples' must be a whole number from 8"),
    ('task = 3\n[model]\narch = "gru"\n', "'task' must be a table"),
    ('[task]\nname = "language_model"\n[model]\narch = "gru"\n', r"has no \[corpus\] table"),
])
def test_bad_task_tables_are_named(text, message):
    with pytest.raises(UserFacingError, match=message):
        parse_recipe(text, source="r.toml")


def test_registries_agree():
    """Every task config has a registered task and the reverse (a torch-free form, a torch
    implementation)."""
    assert set(TASK_CONFIGS) == set(_TASKS)
    assert task_config_from_dict(None) == LanguageModelTaskConfig()


def test_resume_of_a_new_task_is_exact(tmp_path):
    full = [e.loss for e in of_type(events_of(toy_request(tmp_path)), StepLogged)]
    run_dir = tmp_path / "stopped"
    run_dir.mkdir()
    request = toy_request(tmp_path)
    request.run_dir = run_dir
    control = JobControl()
    for event in drive(train_job(request), control):
        if isinstance(event, StepLogged) and event.step == 15:
            control.stop()
    resumed = toy_request(tmp_path)
    resumed.run_dir, resumed.resume = run_dir, True
    after = [e.loss for e in of_type(events_of(resumed), StepLogged)]
    assert after == full[3:]
