"""The sequence-to-sequence task through the unchanged trainer: a tiny date model learns, its
run resumes exactly, padding changes no loss or metric, and a language model is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from training_fixtures import events_of, of_type

from workbench.core.config.models import GruConfig
from workbench.core.config.seq2seq import RnnSeq2seqConfig, Seq2seqTaskConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.data.seq2seq_data import Side
from workbench.core.events import EvalLogged, JobFailed, RunStarted, SampleGenerated, StepLogged
from workbench.core.jobs import JobControl, drive, run_to_end
from workbench.core.models import build_model
from workbench.core.tasks import build_task
from workbench.core.tasks.seq2seq import Seq2seqTask
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training.recipe import Recipe, parse_recipe, recipe_to_toml
from workbench.core.training_loop.trainer import TrainRequest, train_job

TASK = Seq2seqTaskConfig(data="dates", size=1600, length=1, held_out=100)
MODEL = RnnSeq2seqConfig(cell="gru", embedding_size=16, hidden_size=24, attention="additive")


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


@pytest.fixture(scope="module")
def dates():
    return run_to_end(Seq2seqTask.examples(TASK, None, JobControl()))


def request(data, run_dir=None, task=TASK, **training):
    settings = dict(max_steps=120, batch_size=32, eval_every=60, log_every=20,
                    sample_every=120, checkpoint_every=60, warmup_steps=10, lr=1e-2, threads=1)
    settings.update(training)
    return TrainRequest(data, MODEL, TrainingConfig(**settings), run_dir=run_dir,
                        run_name="dates", task=task)


@pytest.mark.slow
def test_a_tiny_date_model_learns_and_logs_its_metrics(tmp_path, dates):
    events = events_of(request(dates))
    assert of_type(events, RunStarted)[0].task == "seq2seq"
    evals = of_type(events, EvalLogged)
    assert evals[-1].val_loss < 0.5 * evals[0].val_loss
    assert evals[-1].metric("token_accuracy") > 0.7
    table = evals[-1].results["accuracy_by_length"]
    assert sum(table["count"]) == len(dates.val_source)
    exact = np.average(table["exact_match"], weights=table["count"])
    assert exact == pytest.approx(evals[-1].metric("exact_match"))
    sample = of_type(events, SampleGenerated)[-1].text
    assert sample.count("→") == 6 and dates.val_pairs[0][0] in sample
    saved = load_checkpoint(f"{events[-1].result}/checkpoints/latest.json")
    assert saved.meta["task"]["name"] == "seq2seq"
    assert saved.meta["model_config"]["source_vocab_size"] == dates.source_tokenizer.vocab_size


@pytest.mark.slow
def test_resume_of_a_seq2seq_run_is_exact(tmp_path, dates):
    changes = dict(max_steps=40, eval_every=20, checkpoint_every=20, log_every=5)
    scheduled = Seq2seqTaskConfig(**{**TASK.__dict__, "teacher_forcing": 0.7})  # draws too
    full = [e.loss for e in of_type(events_of(request(dates, task=scheduled, **changes)),
                                    StepLogged)]
    run_dir = tmp_path / "stopped"
    run_dir.mkdir()
    control = JobControl()
    for event in drive(train_job(request(dates, run_dir, scheduled, **changes)), control):
        if isinstance(event, StepLogged) and event.step == 15:
            control.stop()
    resumed = request(dates, run_dir, scheduled, **changes)
    resumed.resume = True
    after = [e.loss for e in of_type(events_of(resumed), StepLogged)]
    assert after == full[3:]


def test_padding_changes_no_loss_and_no_metric(dates):
    torch.manual_seed(0)
    model = build_model(RnnSeq2seqConfig(
        source_vocab_size=dates.source_tokenizer.vocab_size,
        target_vocab_size=dates.target_tokenizer.vocab_size, hidden_size=8,
        embedding_size=8, attention="dot"))
    task = build_task(TASK, dates)
    task.start(model, TrainingConfig(batch_size=8), torch.device("cpu"))
    plain = task.evaluate(model, amp=False)
    wider = Side(np.pad(dates.val_source.ids, ((0, 0), (0, 5))), dates.val_source.lengths)
    task.data.val_source = wider  # the same sources with five more padding columns
    padded = task.evaluate(model, amp=False)
    task.data.val_source = dates.val_source
    assert padded.loss == pytest.approx(plain.loss, rel=1e-5)
    assert padded.metrics == pytest.approx(plain.metrics)
    batch = task.batch(3)
    loss, _ = task.loss(model, batch.to(torch.device("cpu")), None)
    batch.arrays["source"] = np.pad(batch["source"], ((0, 0), (0, 4)))
    batch.arrays["source_mask"] = np.pad(batch["source_mask"], ((0, 0), (0, 4)))
    again, _ = task.loss(model, batch.to(torch.device("cpu")), None)
    assert math.isclose(loss.item(), again.item(), rel_tol=1e-5)


def test_ranks_weighted_by_their_real_tokens_give_the_whole_batch_loss():
    """Under torchrun each rank gets some rows; weighing its loss by loss_weight (its real
    target tokens) must give what one process computes on the whole batch."""
    from workbench.core.tasks.base import Batch

    reverse = Seq2seqTaskConfig(data="reverse", size=200, length=3, held_out=20)
    pairs = run_to_end(Seq2seqTask.examples(reverse, None, JobControl()))  # outputs vary in length
    torch.manual_seed(0)
    model = build_model(RnnSeq2seqConfig(
        source_vocab_size=pairs.source_tokenizer.vocab_size,
        target_vocab_size=pairs.target_tokenizer.vocab_size, hidden_size=8,
        embedding_size=8, attention="dot"))
    model.eval()
    task = build_task(reverse, pairs)
    task.start(model, TrainingConfig(batch_size=8), torch.device("cpu"))
    whole = task.batch(5)
    halves = [Batch({k: v[rows] for k, v in whole.arrays.items()}, whole.tokens)
              for rows in (slice(0, 3), slice(3, 8))]
    weights = [task.loss_weight(half) for half in halves]
    assert weights[0] != 3 / 8 * sum(weights)  # the halves' token counts are not their rows'
    shares = [task.loss(model, half.to(torch.device("cpu")), None)[0].item() * w
              for half, w in zip(halves, weights, strict=True)]
    expected = task.loss(model, whole.to(torch.device("cpu")), None)[0].item()
    assert sum(shares) / sum(weights) == pytest.approx(expected, rel=1e-5)
    assert sum(weights) == task.loss_weight(whole)


def test_a_language_model_cannot_learn_seq2seq(dates):
    failed = events_of(TrainRequest(dates, GruConfig(), TrainingConfig(max_steps=2, warmup_steps=1),
                                    task=TASK))[-1]
    assert isinstance(failed, JobFailed) and "encoder-decoder" in failed.message


def test_a_seq2seq_recipe_round_trips_without_a_corpus():
    recipe = Recipe("dates", "", MODEL, task=TASK)
    text = recipe_to_toml(recipe)
    assert "[corpus]" not in text and 'name = "seq2seq"' in text
    assert "source_vocab_size" not in text
    assert parse_recipe(text) == recipe
