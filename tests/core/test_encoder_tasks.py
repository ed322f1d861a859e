"""The classify, tag and masked-LM tasks through the unchanged trainer: they learn, log their
metrics and confusion matrix, resume exactly, report unseen labels, answer in the console, and
fine-tune from a masked-LM run with the encoder frozen or trained."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
from training_fixtures import events_of, of_type

from workbench.core.config.encoder_tasks import (
    ClassifyTaskConfig,
    MaskedLmTaskConfig,
    TagTaskConfig,
)
from workbench.core.config.models import GruConfig, TransformerEncoderConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import EvalLogged, JobFinished, Notice
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.predictions import ClassifyPrediction, FillMaskPrediction, TagPrediction
from workbench.core.snapshot.rebuild import model_from_snapshot
from workbench.core.tasks import build_task, task_class
from workbench.core.training.checkpoints import load_checkpoint
from workbench.core.training_loop.trainer import TrainRequest

GRU = GruConfig(embedding_size=8, hidden_size=8, bidirectional=True)
ENCODER = TransformerEncoderConfig(d_model=16, num_heads=2, num_layers=1, d_ff=32,
                                   context_length=32, dropout=0.0)
LINES = ["the king is dead", "long live the king", "the queen is here",
         "the king and the queen", "live long and well"]


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def training(**changes) -> TrainingConfig:
    settings = dict(max_steps=30, batch_size=4, eval_every=10, log_every=5, sample_every=15,
                    checkpoint_every=10, warmup_steps=2, lr=0.02, threads=1, schedule="constant")
    settings.update(changes)
    return TrainingConfig(**settings)


def prepared(config, train: TrainingConfig, vocabulary=None):
    """The task's data, and the notices its preparation gave."""
    recipe = type("R", (), {"training": train})()
    events, steps = [], task_class(config.name).examples(config, recipe, JobControl(),
                                                         vocabulary)
    try:
        while True:
            events.append(next(steps))
    except StopIteration as done:
        return done.value, [e.text for e in events if isinstance(e, Notice)]


def request(config, model, train, **changes):
    data, _ = prepared(config, train)
    return TrainRequest(data, model, train, run_name=config.name, task=config, gui=False,
                        **changes)


@pytest.mark.slow
def test_classify_learns_seed_002_reviews_and_logs_a_confusion_matrix():
    config = ClassifyTaskConfig(dataset="restaurant-reviews", val_fraction=0.2,
                                test_fraction=0.0, pooling="attention")
    events = events_of(request(config, GRU, training(max_steps=40)))
    assert isinstance(events[-1], JobFinished), events[-1]
    evals = of_type(events, EvalLogged)
    assert {"accuracy", "macro_f1"} <= set(evals[-1].metrics)
    confusion = np.asarray(evals[-1].results["classes"]["confusion"])
    assert confusion.shape == (2, 2) and confusion.sum() == 2  # the two held-out reviews
    assert evals[-1].results["classes"]["names"] == ["negative", "positive"]
    saved = load_checkpoint(f"{events[-1].result}/checkpoints/latest.json")
    assert saved.meta["tokenizer"]["labels"] == ["negative", "positive"]
    assert saved.meta["model_config"]["arch"] == "sequence_classifier"
    # the console's answer, on a model rebuilt from the snapshot the trainer took
    from workbench.core.events import SnapshotReady

    snapshot = of_type(events, SnapshotReady)[-1].snapshot
    model = model_from_snapshot(snapshot)
    answer = run_to_end_job(task_class("classify").predict(model, snapshot.tokenizer,
                                                           "horrible rude food", None))
    assert isinstance(answer, ClassifyPrediction) and answer.method == "attention"
    assert answer.tokens == ("horrible", "rude", "food")
    np.testing.assert_allclose(answer.contributions.sum(), 1.0, rtol=1e-5)
    np.testing.assert_allclose(answer.probs.sum(), 1.0, rtol=1e-5)


def run_to_end_job(spec):
    events = list(drive(spec, JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result


def test_gradient_times_input_without_attention_pooling():
    config = ClassifyTaskConfig(dataset="restaurant-reviews", pooling="max")
    data, _ = prepared(config, training())
    task = build_task(config, data)
    from workbench.core.models import build_model

    model = task.build_model(GRU, build_model)
    answer = run_to_end_job(task_class("classify").predict(model, task.vocabulary(),
                                                           "cold food", None))
    assert answer.method == "gradient" and answer.contributions.shape == (2,)
    # gradient × input sums to (about) the logit's first-order change: not all zero
    assert np.abs(answer.contributions).sum() > 0


def test_padding_changes_no_loss_and_no_prediction():
    config = ClassifyTaskConfig(dataset="restaurant-reviews")
    train = training()
    data, _ = prepared(config, train)
    task = build_task(config, data)
    from workbench.core.models import build_model

    torch.manual_seed(0)
    model = task.build_model(GRU, build_model).eval()
    task.start(model, train, torch.device("cpu"))
    short = int(np.argmin([len(ids) for ids in data.train.ids]))
    long = int(np.argmax([len(ids) for ids in data.train.ids]))
    with torch.no_grad():
        alone, padded, both = (task.score(model, task.rows_batch(data.train, np.array(rows),
                                                                 None).to("cpu"))
                               for rows in ([short], [short, long], [long]))
    assert float(alone[0]) + float(both[0]) == pytest.approx(float(padded[0]), rel=1e-5)
    assert padded[3][0] == alone[3][0]


def assert_resumes_exactly(config, model) -> None:
    """Ten steps, then ten more resumed from the checkpoint (the data read again with the
    run's own vocabulary, as the window's Resume does), equal twenty straight."""
    straight = events_of(request(config, model, training(max_steps=20)))
    first_half = events_of(request(config, model, training(max_steps=10)))
    run = Path(first_half[-1].result)
    data, _ = prepared(config, training(), load_checkpoint(
        run / "checkpoints" / "latest.json").meta["tokenizer"])
    resumed = events_of(TrainRequest(data, model, training(max_steps=20), run_dir=run,
                                     run_name=config.name, resume=True, task=config,
                                     gui=False))
    first = load_checkpoint(f"{straight[-1].result}/checkpoints/latest.json")
    second = load_checkpoint(f"{resumed[-1].result}/checkpoints/latest.json")
    assert second.step == first.step == 20
    for name, tensor in first.model.items():
        torch.testing.assert_close(second.model[name], tensor, msg=name)


@pytest.mark.slow
def test_classify_resumes_exactly():
    assert_resumes_exactly(ClassifyTaskConfig(dataset="restaurant-reviews"), GRU)


@pytest.mark.slow
def test_tagging_and_masked_lm_resume_exactly(tmp_path):
    """The tagger's batches, and the masked-LM's corruption (drawn per step from the seed),
    come out the same after a resume."""
    (tmp_path / "train.conllu").write_text((CONLLU + "\n") * 4)
    assert_resumes_exactly(TagTaskConfig(dataset="file", path=str(tmp_path / "train.conllu"),
                                         val_fraction=0.25), GRU)
    (tmp_path / "lines.txt").write_text("\n".join(LINES * 6))
    assert_resumes_exactly(MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"),
                                              min_words=2, val_fraction=0.2), ENCODER)


@pytest.mark.slow
def test_a_fine_tuned_classifier_resumes_exactly_without_its_source_run(tmp_path):
    """A resumed fine-tuning run rebuilds its encoder from its own checkpoint (the masked-LM
    run may be gone by then) and keeps it frozen."""
    import shutil

    (tmp_path / "lines.txt").write_text("\n".join(LINES * 6))
    mlm = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2,
                             val_fraction=0.2)
    source = Path(events_of(request(mlm, ENCODER, training(max_steps=10)))[-1].result)
    kept = tmp_path / "pretrained"
    shutil.copytree(source, kept)
    (tmp_path / "labels.txt").write_text("the king is dead\tsad\nlong live the king\thappy\n" * 5)
    config = ClassifyTaskConfig(dataset="file", path=str(tmp_path / "labels.txt"),
                                pooling="mean", pretrained=str(kept), encoder_state="frozen")
    straight = events_of(request(config, GRU, training(max_steps=20)))
    first_half = events_of(request(config, GRU, training(max_steps=10)))
    shutil.rmtree(kept)
    run = Path(first_half[-1].result)
    data, _ = prepared(config, training(), load_checkpoint(
        run / "checkpoints" / "latest.json").meta["tokenizer"])
    resumed = events_of(TrainRequest(data, GRU, training(max_steps=20), run_dir=run,
                                     run_name="tuned", resume=True, task=config, gui=False))
    first = load_checkpoint(f"{straight[-1].result}/checkpoints/latest.json").model
    second = load_checkpoint(f"{resumed[-1].result}/checkpoints/latest.json").model
    pretrained = load_checkpoint(source / "checkpoints" / "best.json").model
    for name, tensor in first.items():
        torch.testing.assert_close(second[name], tensor, msg=name)
        if name.startswith("encoder."):  # frozen through the resume too
            torch.testing.assert_close(second[name], pretrained[name], msg=name)


CONLLU = """# text = the dog runs
1\tthe\tthe\tDET\tDT\t_\t2\tdet\t_\t_
2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_
3\truns\trun\tVERB\tVBZ\t_\t0\troot\t_\t_

# text = a cat sleeps
1\ta\ta\tDET\tDT\t_\t2\tdet\t_\t_
2\tcat\tcat\tNOUN\tNN\t_\t3\tnsubj\t_\t_
3\tsleeps\tsleep\tVERB\tVBZ\t_\t0\troot\t_\t_
"""


@pytest.mark.slow
def test_tagging_reports_unseen_tags_and_tags_a_typed_sentence(tmp_path):
    (tmp_path / "train.conllu").write_text((CONLLU + "\n") * 4)
    (tmp_path / "test.conllu").write_text("1\twow\twow\tINTJ\tUH\t_\t0\troot\t_\t_\n")
    config = TagTaskConfig(dataset="file", path=str(tmp_path / "train.conllu"),
                           test_path=str(tmp_path / "test.conllu"), val_fraction=0.25)
    data, notes = prepared(config, training())
    assert any("INTJ (1)" in note and "test split" in note for note in notes)
    events = events_of(TrainRequest(data, GRU, training(max_steps=40), run_name="tag",
                                    task=config, gui=False))
    evals = of_type(events, EvalLogged)
    assert evals[-1].metric("accuracy") == 1.0  # three tags, one per position: learnable
    from workbench.core.events import SnapshotReady

    snapshot = of_type(events, SnapshotReady)[-1].snapshot
    answer = run_to_end_job(task_class("tag").predict(model_from_snapshot(snapshot),
                                                      snapshot.tokenizer, "the cat runs", None))
    assert isinstance(answer, TagPrediction)
    assert answer.predicted == ("DET", "NOUN", "VERB")
    assert answer.probs.shape == (3, 4)  # DET INTJ NOUN VERB


@pytest.mark.slow
def test_masked_lm_then_fine_tuning_frozen_or_trained(tmp_path):
    text = "\n".join(LINES * 6)
    (tmp_path / "lines.txt").write_text(text)
    mlm = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2,
                             val_fraction=0.2)
    events = events_of(request(mlm, ENCODER, training(max_steps=30)))
    assert of_type(events, EvalLogged)[-1].metric("accuracy") >= 0.0
    pretrained = events[-1].result
    from workbench.core.events import SnapshotReady

    snapshot = of_type(events, SnapshotReady)[-1].snapshot
    answer = run_to_end_job(task_class("masked_lm").predict(
        model_from_snapshot(snapshot), snapshot.tokenizer, "long live the [MASK]", None))
    assert isinstance(answer, FillMaskPrediction) and answer.masked == (3,)
    assert "[MASK]" not in answer.candidates[0] and "<pad>" not in answer.candidates[0]
    encoder_weights = {k: v for k, v in load_checkpoint(
        f"{pretrained}/checkpoints/best.json").model.items() if k.startswith("encoder.")}
    (tmp_path / "labels.txt").write_text("the king is dead\tsad\nlong live the king\thappy\n" * 5)
    for state in ("frozen", "trained"):
        config = ClassifyTaskConfig(dataset="file", path=str(tmp_path / "labels.txt"),
                                    pooling="mean", pretrained=pretrained, encoder_state=state)
        data, notes = prepared(config, training())
        assert any("starts from" in note for note in notes)
        # the panel's encoder settings do not apply: the pretrained encoder's do
        run = events_of(TrainRequest(data, GRU, training(max_steps=10), run_name=state,
                                     task=config, gui=False))
        tuned = load_checkpoint(f"{run[-1].result}/checkpoints/latest.json").model
        same = all(torch.equal(tuned[k], v) for k, v in encoder_weights.items())
        assert same == (state == "frozen"), state


def test_a_decoder_only_transformer_cannot_classify():
    from workbench.core.config.models import TransformerConfig
    from workbench.core.models import build_model

    config = ClassifyTaskConfig(dataset="restaurant-reviews")
    data, _ = prepared(config, training())
    with pytest.raises(UserFacingError, match="cannot read a whole sentence"):
        build_task(config, data).build_model(TransformerConfig(), build_model)


def test_run_name_finds_the_newest_run_of_that_recipe(tmp_path, monkeypatch):
    """Run folders are named with the architecture and corpus added to the recipe's name, as
    `workbench train` and the window name them; 'run:NAME' still finds them by the recipe."""
    from workbench.core.tasks.encoder_start import resolve_run

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path))
    for folder, name in (("20261125-200806-mlm-shakespeare-transformer_encoder", "mlm-shakespeare"),
                         ("20261125-210000-mlm-shakespeare-transformer_encoder", "mlm-shakespeare"),
                         ("20261125-220000-mlm-tiny-transformer_encoder", "mlm-tiny")):
        run = tmp_path / folder
        (run / "checkpoints").mkdir(parents=True)
        (run / "metrics.jsonl").write_text("")
        (run / "recipe.toml").write_text(f'name = "{name}"\n')
    newest = tmp_path / "20261125-210000-mlm-shakespeare-transformer_encoder"
    assert resolve_run("run:mlm-shakespeare") == newest
    (newest / "recipe.toml").unlink()  # no recipe: the folder's name is all there is
    assert resolve_run("run:mlm-shakespeare").name.startswith("20261125-200806")


def test_a_missing_pretrained_run_says_what_to_do():
    config = dataclasses.replace(ClassifyTaskConfig(dataset="restaurant-reviews"),
                                 pretrained="run:mlm-nothing")
    with pytest.raises(UserFacingError, match="Train the preset or recipe 'mlm-nothing'"):
        prepared(config, training())




@pytest.mark.slow
def test_the_guard_holds_each_encoder_task_to_its_uniform_guess(tmp_path):
    """ln K for K labels or tags, ln |V| for masked-LM: a classifier trained at a rate that
    leaves it worse than guessing is stopped as diverged, not finished 'done'."""
    import math

    reviews = ClassifyTaskConfig(dataset="restaurant-reviews", val_fraction=0.2,
                                 test_fraction=0.0)
    data, _ = prepared(reviews, training())
    assert build_task(reviews, data).uniform_loss() == pytest.approx(math.log(2))
    (tmp_path / "lines.txt").write_text("the king is dead\nlong live the king\n" * 5)
    mlm = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2)
    data, _ = prepared(mlm, training())
    assert build_task(mlm, data).uniform_loss() == pytest.approx(
        math.log(data.vocabulary.tokenizer.vocab_size))
    from workbench.core.events import DivergenceHandled, JobFailed

    events = events_of(request(reviews, GRU, training(max_steps=60, lr=10.0, grad_clip=0.0,
                                                      spike_factor=0.0, warmup_steps=0)))
    handled = of_type(events, DivergenceHandled)
    assert handled and "uniform guess" in handled[0].reason
    assert isinstance(events[-1], JobFailed)


def test_the_encoder_presets_read_and_name_their_data():
    from workbench.core.resources import dataset_path, resource_path
    from workbench.core.training.recipe import load_recipe

    tasks = {}
    for name in ("sentiment-bilstm", "sentiment-transformer", "upos-bilstm", "mlm-shakespeare",
                 "sentiment-finetune"):
        recipe = load_recipe(resource_path("recipes", f"{name}.toml"))
        tasks[name] = (recipe.task.name, recipe.model.arch)
        assert recipe.task.problems() == [] and recipe.model.problems() == []
    assert tasks["sentiment-bilstm"] == ("classify", "lstm")
    assert tasks["sentiment-transformer"] == ("classify", "transformer_encoder")
    assert tasks["upos-bilstm"] == ("tag", "lstm")
    assert tasks["mlm-shakespeare"] == ("masked_lm", "transformer_encoder")
    finetune = load_recipe(resource_path("recipes", "sentiment-finetune.toml"))
    assert finetune.task.pretrained == "run:mlm-shakespeare"
    assert (dataset_path("ud-english-ewt") / "en_ewt-ud-test.conllu").is_file()


@pytest.mark.parametrize("kind", ["tag", "masked_lm"])
def test_ranks_weighted_by_their_scored_tokens_give_the_whole_batch_loss(tmp_path, kind):
    """Under torchrun each rank gets some rows of a batch; weighing its loss by loss_weight
    (its scored tokens) must give what one process computes on the whole batch."""
    from workbench.core.models import build_model
    from workbench.core.tasks.base import Batch

    lines = ["the king is dead", "long live the king and the queen", "the queen is here",
             "live long", "the king and the queen and the dog run"] * 4
    if kind == "tag":
        (tmp_path / "t.conllu").write_text("\n".join(
            "\n".join(f"{i}\t{w}\t{w}\t{'DET' if w == 'the' else 'NOUN'}\t_\t_\t0\tx\t_\t_"
                      for i, w in enumerate(line.split(), 1)) + "\n" for line in lines))
        config, model_config = TagTaskConfig(dataset="file", path=str(tmp_path / "t.conllu"),
                                             val_fraction=0.2), GRU
    else:
        (tmp_path / "lines.txt").write_text("\n".join(lines))
        config, model_config = MaskedLmTaskConfig(dataset="file", val_fraction=0.2,
                                                  path=str(tmp_path / "lines.txt"),
                                                  min_words=2), ENCODER
    train = training(batch_size=8)
    data, _ = prepared(config, train)
    task = build_task(config, data)
    torch.manual_seed(0)
    model = task.build_model(model_config, build_model)
    model.eval()
    task.start(model, train, torch.device("cpu"))
    whole = task.batch(3)
    halves = [Batch({k: v[rows] for k, v in whole.arrays.items()}, whole.tokens)
              for rows in (slice(0, 3), slice(3, 8))]
    weights = [task.loss_weight(half) for half in halves]
    assert weights[0] != 3 / 8 * sum(weights)  # shares of tokens unlike shares of rows
    cpu = torch.device("cpu")
    shares = [task.loss(model, half.to(cpu), None)[0].item() * w
              for half, w in zip(halves, weights, strict=True)]
    expected = task.loss(model, whole.to(cpu), None)[0].item()
    assert sum(shares) / sum(weights) == pytest.approx(expected, rel=1e-5)


class _FedError(Exception):
    """Raised by the hook below once it has seen where the model's input is."""


@pytest.mark.parametrize("kind", ["classify", "tag", "masked_lm"])
def test_the_preview_feeds_the_model_on_the_models_device(tmp_path, kind):
    """A run on a GPU previews every `sample_every` steps and at its last step: the tag and
    masked-LM previews built their input on the CPU and crashed every CUDA run of those
    presets at its end. The model here is on the 'meta' device, a stand-in for the GPU that a
    CPU-only machine has: the preview must hand it 'meta' tokens."""
    from workbench.core.models import build_model

    (tmp_path / "train.conllu").write_text((CONLLU + "\n") * 4)
    (tmp_path / "lines.txt").write_text("\n".join(LINES * 6))
    (tmp_path / "labels.txt").write_text("the king is dead\tsad\nlong live the king\thappy\n" * 5)
    config = {"classify": ClassifyTaskConfig(dataset="file", path=str(tmp_path / "labels.txt")),
              "tag": TagTaskConfig(dataset="file", path=str(tmp_path / "train.conllu"),
                                   val_fraction=0.25),
              "masked_lm": MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"),
                                              min_words=2, val_fraction=0.2)}[kind]
    data, _ = prepared(config, training())
    task = build_task(config, data)
    model = task.build_model(ENCODER if kind == "masked_lm" else GRU, build_model).to("meta")
    task.start(model, training(), torch.device("meta"))
    seen = []

    def record(module, args, kwargs):
        seen.append(args[0].device.type)
        raise _FedError

    model.register_forward_pre_hook(record, with_kwargs=True)
    with pytest.raises(_FedError):
        task.preview(model, 15)
    assert seen == ["meta"]
