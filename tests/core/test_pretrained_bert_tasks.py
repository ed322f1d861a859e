"""A BERT folder as the encoder of the classification and tagging tasks (issue 34 item 3): the
folder's encoder weights and tokenizer with a fresh head (the MLM head dropped), sentences read
as [CLS] … [SEP], the classifier reading the [CLS] state (BERT's pooler as an option), the
tagger's tag on each word's first piece; 20 steps lower the loss, a stopped run resumes
exactly, `workbench predict` answers, and a GPT-2 folder is refused saying why."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.core.finetune_support import losses
from tests.core.pretrained_folders import make_bert_folder, make_gpt2_folder
from workbench.app.main import main as workbench
from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

CAT = ["the cat sat on the mat", "the cat sat", "on the mat the cat sat", "the mat",
       "the cat sat on the cat", "a cat on a mat", "the cat", "cat and mat"]
SUN = ["juliet is the sun", "it is the east", "what light through yonder window breaks",
       "but soft what light", "the east is the sun", "juliet is the east", "soft light",
       "yonder window breaks"]
TAGS = {"the": "DET", "a": "DET", "cat": "NOUN", "mat": "NOUN", "sun": "NOUN", "east": "NOUN",
        "light": "NOUN", "window": "NOUN", "sat": "VERB", "breaks": "VERB", "on": "ADP",
        "through": "ADP", "juliet": "PROPN", "is": "AUX", "it": "PRON", "what": "PRON",
        "but": "CCONJ", "and": "CCONJ", "soft": "ADJ", "yonder": "ADJ"}

RECIPE = """name = "bert-{task}"
seed = 3
[model]
arch = "lstm"
dropout = 0.0
[task]
name = "{task}"
dataset = "file"
path = "{data}"
val_fraction = 0.25
test_fraction = 0.0
start_from = "tiny-bert"
{extra}
[training]
max_steps = 20
batch_size = 8
eval_every = 10
eval_batches = 2
log_every = 2
sample_every = 10
warmup_steps = 2
lr = 0.003
schedule = "constant"
checkpoint_every = 10
threads = 1
"""


def conllu(sentences: list[str]) -> str:
    rows = []
    for sentence in sentences:
        for i, word in enumerate(sentence.split(), 1):
            rows.append(f"{i}\t{word}\t{word}\t{TAGS[word]}\t_\t_\t0\tdep\t_\t_")
        rows.append("")
    return "\n".join(rows) + "\n"


def write_recipe(tmp_path, task: str, extra: str = "") -> object:
    if task == "classify":
        data = "reviews.txt"
        rows = [f"{s}\tcat" for s in CAT] + [f"{s}\tsun" for s in SUN]
        (tmp_path / data).write_text("\n".join(rows * 3) + "\n", encoding="utf-8")
    else:
        data = "train.conllu"
        (tmp_path / data).write_text(conllu(CAT + SUN) * 3, encoding="utf-8")
    recipe = tmp_path / f"{task}.toml"
    recipe.write_text(RECIPE.format(task=task, data=data, extra=extra), encoding="utf-8")
    return recipe


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    return make_bert_folder(tmp_path / "tiny-bert")


@pytest.mark.parametrize("task", ["classify", "tag"])
def test_twenty_steps_from_bert_lower_the_loss_and_resume_exactly(folder, tmp_path, task):
    extra = 'pooling = "cls"' if task == "classify" else ""
    recipe = write_recipe(tmp_path, task, extra)
    whole, halves = tmp_path / "whole", tmp_path / "halves"
    assert main([str(recipe), "--out", str(whole)]) == 0
    saved = load_checkpoint(whole / "checkpoints" / "latest.json")
    config = saved.meta["model_config"]
    assert config["encoder"]["arch"] == "transformer_encoder"  # the folder's, not the lstm
    assert config["encoder"]["embedding_norm"] and config["encoder"]["d_model"] == 32
    assert saved.meta["tokenizer"]["kind"] == "pretrained"
    assert not any(k.startswith("head.transform") for k in saved.model)  # the MLM head dropped
    if task == "classify":
        assert config["cls_in_text"] and config["pooling"] == "cls"
    # the encoder's weights are the folder's at step 0: the first loss is BERT's, not random
    train = losses(whole, "loss")
    assert np.mean(train[-3:]) < np.mean(train[:3]) - 0.1, train
    assert main([str(recipe), "--out", str(halves), "--max-steps", "10"]) == 0
    assert main(["--resume", str(halves), "--max-steps", "20"]) == 0
    assert losses(whole, "val_loss") == losses(halves, "val_loss")
    b = load_checkpoint(halves / "checkpoints" / "latest.json").model
    assert all(np.array_equal(saved.model[k].numpy(), b[k].numpy()) for k in saved.model)


def test_the_encoder_starts_with_the_folders_weights(folder, tmp_path):
    from workbench.core.config.encoder_tasks import ClassifyTaskConfig
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.models import build_model
    from workbench.core.pretrained import open_model
    from workbench.core.tasks import task_class

    write_recipe(tmp_path, "classify")
    config = ClassifyTaskConfig(dataset="file", path=str(tmp_path / "reviews.txt"),
                                pooling="cls", start_from=str(folder), bert_pooler=True)
    data = run_to_end(task_class("classify").examples(config, None, JobControl()))
    cls_id, sep_id = data.vocabulary.tokenizer.frame[0][0], data.vocabulary.tokenizer.frame[1][0]
    assert all(row[0] == cls_id and row[-1] == sep_id for row in data.train.ids)
    task = task_class("classify")(config, data)
    model = task.build_model(None, build_model)
    _, weights = open_model(folder)
    mine = model.state_dict()
    for name, value in weights.items():
        if name.startswith("encoder."):
            assert np.array_equal(mine[name].numpy(), value), name
    # a BertForMaskedLM has no pooler: BERT's pooler starts fresh, and says so
    assert model.pooler is not None and any("pooler starts fresh" in n for n in data.notes)


def test_bert_pooler_is_read_from_a_folder_that_has_one(tmp_path):
    import torch
    from transformers import BertConfig, BertForPreTraining

    from workbench.core.tasks.bert_encoder import pooler_weights

    folder = make_bert_folder(tmp_path / "tiny-bert")
    config = BertConfig.from_pretrained(folder)
    model = BertForPreTraining(config)  # what bert-base-uncased holds: a pooler
    model.save_pretrained(tmp_path / "pre")
    read = pooler_weights(tmp_path / "pre")
    assert torch.equal(read["dense.weight"], model.bert.pooler.dense.weight.detach())
    assert pooler_weights(folder) == {}


def test_the_tag_sits_on_each_words_first_piece(folder, tmp_path):
    from workbench.core.config.encoder_tasks import TagTaskConfig
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.tasks import task_class

    write_recipe(tmp_path, "tag")
    config = TagTaskConfig(dataset="file", path=str(tmp_path / "train.conllu"),
                           val_fraction=0.25, test_fraction=0.0, start_from=str(folder))
    data = run_to_end(task_class("tag").examples(config, None, JobControl()))
    tokenizer = data.vocabulary.tokenizer
    for ids, tags, text in zip(data.train.ids, data.train.targets, data.train.texts,
                               strict=True):
        words = text.split()
        assert tags[0] == -100 and tags[-1] == -100  # [CLS] and [SEP] carry no tag
        firsts = np.flatnonzero(tags != -100)
        assert [data.names[t] for t in tags[firsts]] == [TAGS[w] for w in words]
        # each tagged position starts its word: the pieces up to the next one spell it
        bounds = [*firsts, len(ids) - 1]
        for word, start, end in zip(words, bounds, bounds[1:], strict=False):
            assert tokenizer.decode(ids[start:end].tolist()).replace(" ", "") == word


def test_predict_answers_with_the_fine_tuned_bert(folder, tmp_path, capsys):
    for task, text in (("classify", "the cat sat"), ("tag", "juliet is the sun")):
        recipe = write_recipe(tmp_path, task, 'pooling = "cls"' if task == "classify" else "")
        out = tmp_path / f"run-{task}"
        assert main([str(recipe), "--out", str(out)]) == 0
        capsys.readouterr()
        assert workbench(["predict", str(out), text, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        if task == "classify":
            assert answer["label"] in ("cat", "sun")
            assert sum(answer["probabilities"].values()) == pytest.approx(1.0)
            tokens = [t for t, _ in answer["contributions"]]
            assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]", tokens
        else:
            assert len(answer["tags"]) == 4, answer  # one per word, not per piece


@pytest.mark.parametrize("task", ["classify", "tag"])
def test_a_gpt2_folder_is_refused_as_an_encoder(tmp_path, monkeypatch, capsys, task):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_gpt2_folder(tmp_path / "tiny-bert")  # the recipe's name, a GPT-2 inside
    recipe = write_recipe(tmp_path, task)
    assert main([str(recipe), "--out", str(tmp_path / "bad")]) != 0
    err = capsys.readouterr().err
    assert "reads left to right" in err and "Choose the folder of a BERT model" in err, err


def test_the_windows_query_gives_an_encoder_tasks_encoder(folder, tmp_path):
    from workbench.app.models_backend import ModelsBackend
    from workbench.core.config.models import TransformerEncoderConfig
    from workbench.core.events import JobFailed, JobFinished
    from workbench.core.jobs import JobControl, drive

    for task in ("masked_lm", "classify", "tag"):
        events = list(drive(ModelsBackend().folder_config_job(str(folder), task), JobControl()))
        assert isinstance(events[-1], JobFinished), events[-1]
        assert isinstance(events[-1].result, TransformerEncoderConfig)
        assert events[-1].result.d_model == 32 and events[-1].result.embedding_norm
    make_gpt2_folder(tmp_path / "tiny-gpt2")
    events = list(drive(ModelsBackend().folder_config_job(str(tmp_path / "tiny-gpt2"), "tag"),
                        JobControl()))
    assert isinstance(events[-1], JobFailed) and "reads left to right" in events[-1].message
