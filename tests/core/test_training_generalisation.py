"""Curves that show generalisation (issue 29, item 2): early stopping after `patience`
validations without a new best, and the test figure of the best checkpoint at the end."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch
from training_fixtures import build_tiny, of_type, tiny_request, tiny_tokens

from workbench.core.config.tasks import LanguageModelTaskConfig
from workbench.core.corpus.dataset import TokenizedCorpus, split_ids
from workbench.core.events import CheckpointSaved, JobFinished, Notice, StepLogged, TestLogged
from workbench.core.tasks import build_task
from workbench.core.tasks.base import Evaluation
from workbench.core.training.checkpoints import load_checkpoint, load_weights_into
from workbench.core.training.runs import read_run
from workbench.core.training_loop.trainer import Trainer


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def with_test_split(request):
    """The tiny corpus cut into train, validation and test (the fixture has no test text)."""
    tokens = tiny_tokens()
    train, val, test = split_ids(tokens.ids, 0.1, 0.1)
    request.data = TokenizedCorpus(tokens.tokenizer, tokens.ids, train, val, test,
                                   corpus_name="tiny")
    return request


def scripted_validation(trainer: Trainer, losses: list[float]) -> None:
    """Validation losses in this order, whatever the model does."""
    queue = iter(losses)
    trainer.task.evaluate = lambda model, amp: Evaluation(next(queue), {})


def test_patience_stops_at_the_validation_that_runs_out_of_it(tmp_path):
    request = tiny_request(tmp_path, max_steps=200, eval_every=5, patience=2,
                           sample_every=0, checkpoint_every=1000)
    trainer = Trainer(request)
    # steps 5, 10 improve; 15 and 20 do not: the second miss ends the run at step 20
    scripted_validation(trainer, [3.0, 2.5, 2.6, 2.55] + [9.0] * 100)
    events = list(trainer.run())
    assert max(e.step for e in of_type(events, StepLogged)) == 20
    assert isinstance(events[-1], JobFinished)
    said = [e.text for e in of_type(events, Notice)]
    assert len(said) == 1 and "not improved for 2 validations" in said[0]
    assert "step 10" in said[0]
    saved = {e.kind: e.step for e in of_type(events, CheckpointSaved)}
    assert saved == {"best": 10, "latest": 20}
    assert load_checkpoint(trainer.checkpoint_dir / "best.json").step == 10


@pytest.mark.slow
def test_patience_zero_never_stops_early(tmp_path):
    request = tiny_request(tmp_path, max_steps=30, eval_every=5, patience=0, sample_every=0)
    trainer = Trainer(request)
    scripted_validation(trainer, [3.0] + [9.0] * 100)
    events = list(trainer.run())
    assert max(e.step for e in of_type(events, StepLogged)) == 30
    assert of_type(events, Notice) == []


def test_patience_counts_on_after_a_resume(tmp_path):
    request = tiny_request(tmp_path, max_steps=20, eval_every=5, patience=3, sample_every=0)
    trainer = Trainer(request)
    # below the uniform guess ln |V| of the tiny corpus, which is never 'best'
    scripted_validation(trainer, [1.0, 1.1, 1.2, 1.3])  # best at 5, three misses: stop at 20
    list(trainer.run())
    # the 'latest' checkpoint at step 20 remembers three misses (patience 3)
    resumed = Trainer(dataclasses.replace(request, training=dataclasses.replace(
        request.training, max_steps=40, patience=4), run_dir=trainer.run_dir, resume=True))
    assert (resumed.best_step, resumed.since_best) == (5, 3)
    scripted_validation(resumed, [1.4] * 10)  # one more miss ends it under patience 4
    events = list(resumed.run())
    assert max(e.step for e in of_type(events, StepLogged)) == 25


def test_the_test_figure_is_the_best_checkpoint_scored_on_the_test_split(tmp_path):
    request = with_test_split(tiny_request(tmp_path, max_steps=40, eval_every=10,
                                           sample_every=0))
    trainer = Trainer(request)
    events = list(trainer.run())
    tests = of_type(events, TestLogged)
    assert len(tests) == 1 and isinstance(events[-1], JobFinished)
    figure = tests[0]
    best = load_checkpoint(trainer.checkpoint_dir / "best.json")
    assert (figure.checkpoint, figure.checkpoint_step, figure.step) == ("best", best.step, 40)
    # an independent evaluation: a fresh model with the best weights, a fresh task
    task = build_task(LanguageModelTaskConfig(), request.data)
    model = task.build_model(request.model_config, build_tiny)
    load_weights_into(model, best)
    task.start(model, request.training, torch.device("cpu"))
    expected = task.test(model)
    assert figure.test_loss == pytest.approx(expected.loss, rel=1e-6)
    assert figure.metrics["perplexity"] == pytest.approx(np.exp(expected.loss), rel=1e-6)
    # the validation figure is another text: the two differ
    assert figure.test_loss != pytest.approx(best.meta["metrics"]["val_loss"], rel=1e-6)
    # and it is in metrics.jsonl, read back as the same event
    lines = [json.loads(line) for line in
             (trainer.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert lines[-1]["event"] == "test"
    assert of_type(read_run(trainer.run_dir).events, TestLogged) == [figure]


def test_no_test_split_no_test_figure(tmp_path):
    events = list(Trainer(tiny_request(tmp_path, max_steps=20, sample_every=0)).run())
    assert of_type(events, TestLogged) == [] and isinstance(events[-1], JobFinished)
