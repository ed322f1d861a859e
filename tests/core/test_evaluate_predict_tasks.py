"""`workbench evaluate` and `workbench predict` on sequence-to-sequence, classification and
tagging models trained in the test (issue 29 item 5, issue 35 item 3): evaluate's figures are
the trainer's validation figures on the same examples; predict answers as the console does;
a file that does not fit the model is refused naming what does not fit."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from training_fixtures import events_of

from workbench.app.evaluate_cli import evaluate
from workbench.app.main import main as workbench
from workbench.core.config.encoder_tasks import ClassifyTaskConfig, TagTaskConfig
from workbench.core.config.models import GruConfig
from workbench.core.config.seq2seq import RnnSeq2seqConfig, Seq2seqTaskConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, run_to_end
from workbench.core.tasks import build_task, task_class
from workbench.core.training_loop.trainer import TrainRequest

GRU = GruConfig(embedding_size=8, hidden_size=8, bidirectional=True)
PAIRS = [("go .", "va !"), ("run .", "cours !"), ("that is fun .", "c'est amusant."),
         ("that is fun .", "c'est marrant."), ("do it .", "faites-le."),
         ("who are you ?", "qui es-tu ?"), ("stop .", "arrête !"), ("come here .", "viens ici."),
         ("i see .", "je vois."), ("help me .", "aide-moi."), ("wait .", "attends !"),
         ("i know .", "je sais."), ("thank you .", "merci."), ("sit down .", "assieds-toi.")]
REVIEWS = ["good food\tpositive", "great service\tpositive", "horrible food\tnegative",
           "rude service\tnegative", "lovely place\tpositive", "awful place\tnegative",
           "good service\tpositive", "horrible place\tnegative"]
CONLLU = ("1\tthe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
          "3\truns\trun\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n"
          "1\ta\ta\tDET\tDT\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
          "3\tsleeps\tsleep\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n")


def training(**changes) -> TrainingConfig:
    settings = dict(max_steps=30, batch_size=4, eval_every=30, log_every=10, sample_every=30,
                    checkpoint_every=30, warmup_steps=2, lr=0.02, threads=1,
                    schedule="constant")
    settings.update(changes)
    return TrainingConfig(**settings)


def trained(config, model, train):
    """(run folder, the run's data, the trainer's task on it, the final model)."""
    from workbench.app.generate_cli import open_checkpoint
    from workbench.core.snapshot.rebuild import model_from_snapshot

    recipe = type("R", (), {"training": train})()
    data = run_to_end(task_class(config.name).examples(config, recipe, JobControl()))
    events = events_of(TrainRequest(data, model, train, run_name=config.name, task=config,
                                    gui=False))
    assert isinstance(events[-1], JobFinished), events[-1]
    run_dir = events[-1].result
    snapshot = open_checkpoint(Path(run_dir))
    net = model_from_snapshot(snapshot).eval()
    task = build_task(config, data)
    import torch

    task.start(net, train, torch.device("cpu"))
    return run_dir, data, task, net


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


@pytest.mark.slow
def test_seq2seq_evaluate_equals_validation_and_predict_translates(tmp_path, capsys):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{s}\t{t}\n" for s, t in PAIRS * 3), encoding="utf-8")
    config = Seq2seqTaskConfig(data="file", path=str(pairs), held_out=4, source_tokens="word",
                               target_tokens="word")
    model = RnnSeq2seqConfig(cell="gru", embedding_size=16, hidden_size=24)
    run_dir, data, task, net = trained(config, model, training(max_steps=60, batch_size=8))
    expected = task.evaluate(net, amp=False)
    held = {s for s, _ in data.val_pairs}
    heldout = tmp_path / "heldout.tsv"
    heldout.write_text("".join(f"{s}\t{t}\n" for s, t in PAIRS if s in held), encoding="utf-8")
    report, _ = evaluate(Path(run_dir), heldout)
    for name in ("exact_match", "bleu", "chrf"):
        assert report.metrics[name] == pytest.approx(expected.metrics[name]), name
    assert report.items == len(held)
    # the console's decoder, on the command line; generate points there
    assert workbench(["predict", run_dir, "do it .", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["input"] == "do it ." and answer["strategy"] == "greedy"
    assert workbench(["predict", run_dir, "do it .", "--beam", "3"]) == 0
    assert capsys.readouterr().out.startswith("do it .\t")
    assert workbench(["generate", run_dir]) == 2
    assert "workbench predict" in capsys.readouterr().err


def _encoder_case(tmp_path, kind):
    if kind == "classify":
        source = tmp_path / "reviews.txt"
        source.write_text("\n".join(REVIEWS * 3) + "\n", encoding="utf-8")
        return ClassifyTaskConfig(dataset="file", path=str(source), val_fraction=0.25,
                                  test_fraction=0.0, output="sigmoid", pooling="mean")
    source = tmp_path / "train.conllu"
    source.write_text(CONLLU * 4, encoding="utf-8")
    return TagTaskConfig(dataset="file", path=str(source), val_fraction=0.25)


@pytest.mark.parametrize("kind", ["classify", "tag"])
@pytest.mark.slow
def test_encoder_evaluate_equals_validation_and_refuses_unknown_labels(tmp_path, kind,
                                                                       capsys):
    config = _encoder_case(tmp_path, kind)
    run_dir, data, task, net = trained(config, GRU, training())
    expected = task.evaluate(net, amp=False)
    held = tmp_path / ("held.txt" if kind == "classify" else "held.conllu")
    if kind == "classify":
        held.write_text("".join(f"{t}\t{data.names[y]}\n" for t, y in zip(
            data.val.texts, data.val.targets, strict=True)), encoding="utf-8")
    else:
        held.write_text(CONLLU, encoding="utf-8")
        expected = _tag_expected(task, net, data, config, held)
    report, _ = evaluate(Path(run_dir), held)
    assert report.metrics["loss"] == pytest.approx(expected.loss, rel=1e-5)
    for name in ("accuracy", "macro_f1"):
        assert report.metrics[name] == pytest.approx(expected.metrics[name])
    assert report.results["classes"] == expected.results["classes"]
    assert workbench(["evaluate", run_dir, str(held), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["results"]["classes"]["confusion"] == expected.results["classes"]["confusion"]
    # a file with labels or tags the model never saw is refused, naming them
    other = tmp_path / ("other.txt" if kind == "classify" else "other.conllu")
    if kind == "classify":
        other.write_text("good food\tpositive\nmeh food\tneutral\n", encoding="utf-8")
    else:
        other.write_text("1\twow\twow\tINTJ\tUH\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    assert workbench(["evaluate", run_dir, str(other)]) == 2
    err = capsys.readouterr().err
    assert ("neutral" if kind == "classify" else "INTJ") in err and "Traceback" not in err


def _tag_expected(task, net, data, config, held):
    """The trainer's validation on the sentences of `held` (its own code, its own data)."""
    from workbench.core.data.conllu import read_conllu
    from workbench.core.tasks.tag import encode_sentences

    sentences = list(read_conllu(held, config.column).sentences)
    index = {n: i for i, n in enumerate(data.names)}
    task.val, _ = encode_sentences(data.vocabulary.tokenizer, sentences, index,
                                   config.max_length)
    return task.evaluate(net, amp=False)


@pytest.mark.slow
def test_predict_classifies_and_tags_from_arguments_files_and_standard_input(
        tmp_path, capsys, monkeypatch):
    config = _encoder_case(tmp_path, "classify")
    run_dir, *_ = trained(config, GRU, training())
    assert workbench(["predict", run_dir, "horrible food", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["label"] in ("positive", "negative") and answer["method"] == "gradient"
    assert sum(answer["probabilities"].values()) == pytest.approx(1.0)
    assert [t for t, _ in answer["contributions"]] == ["horrible", "food"]
    assert all(c != 0 for _, c in answer["contributions"])  # a sigmoid head: the real logit
    inputs = tmp_path / "inputs.txt"
    inputs.write_text("good food\n\nrude service\n", encoding="utf-8")
    assert workbench(["predict", run_dir, "--file", str(inputs), "--json"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("lovely place\n"))
    assert workbench(["predict", run_dir]) == 0
    assert "lovely place" in capsys.readouterr().out
    tag_config = _encoder_case(tmp_path, "tag")
    tag_dir, *_ = trained(tag_config, GRU, training(max_steps=40))
    assert workbench(["predict", tag_dir, "the cat runs"]) == 0
    assert capsys.readouterr().out.strip() == "the/DET cat/NOUN runs/VERB"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert workbench(["predict", tag_dir]) == 2
    assert "No input" in capsys.readouterr().err
    assert workbench(["predict", str(tmp_path / "nothing"), "x"]) == 2
    assert "does not exist" in capsys.readouterr().err
