"""Fine-tuning a BERT folder by masked-LM on the user's sentences (issue 34 item 3): the
folder's sizes, weights and tokenizer replace the form's encoder and the trained tokenizer,
sentences are read as [CLS] sentence [SEP] with [CLS] and [SEP] never chosen, the loss falls in
20 steps, a stopped run resumes exactly, and a folder of the other kind is refused."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.finetune_support import assert_resumes_exactly, losses
from tests.core.pretrained_folders import TEXT, make_bert_folder, make_gpt2_folder
from workbench.app.train_cli import main
from workbench.core.training.checkpoints import load_checkpoint

RECIPE = """name = "bert-finetune"
seed = 3
[model]
arch = "lstm"
dropout = 0.0
[task]
name = "masked_lm"
dataset = "file"
path = "lines.txt"
min_words = 2
val_fraction = 0.2
start_from = "tiny-bert"
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


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_bert_folder(tmp_path / "tiny-bert")
    lines = [s.strip() + "." for t in TEXT for s in t.split(".") if len(s.split()) > 2]
    (tmp_path / "lines.txt").write_text("\n".join(lines * 3), encoding="utf-8")
    (tmp_path / "finetune.toml").write_text(RECIPE, encoding="utf-8")
    return tmp_path / "finetune.toml"


def test_twenty_steps_lower_the_loss_of_bert_with_its_own_tokens(recipe, tmp_path):
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    saved = load_checkpoint(out / "checkpoints" / "latest.json")
    config, tokenizer = saved.meta["model_config"], saved.meta["tokenizer"]
    assert config["arch"] == "masked_lm" and config["encoder"]["d_model"] == 32  # not lstm
    assert config["encoder"]["embedding_norm"] and config["encoder"]["dropout"] == 0.0
    assert tokenizer["kind"] == "pretrained" and tokenizer["mask_id"] == 4
    train = losses(out, "loss")
    assert np.mean(train[-3:]) < np.mean(train[:3]) - 0.3, train


def test_cls_and_sep_frame_every_sentence_and_are_never_chosen(recipe, tmp_path):
    from workbench.core.config.encoder_tasks import MaskedLmTaskConfig
    from workbench.core.jobs import JobControl
    from workbench.core.tasks import task_class

    config = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2,
                                start_from=str(tmp_path / "tiny-bert"))
    recipe_like = type("R", (), {"training": type("T", (), {"seed": 0})()})()
    steps = task_class(config.name).examples(config, recipe_like, JobControl())
    try:
        while True:
            next(steps)
    except StopIteration as done:
        data = done.value
    cls_id, sep_id = data.vocabulary.tokenizer.frame[0][0], data.vocabulary.tokenizer.frame[1][0]
    assert all(row[0] == cls_id and row[-1] == sep_id for row in data.train.ids)
    task = task_class(config.name)(config, data)
    task.seed = 0
    rows = np.arange(len(data.train))
    from workbench.core.tasks.sequences import pad

    tokens, mask = pad([data.train.ids[i] for i in rows])
    for step in range(20):
        targets = task.targets(data.train, rows, tokens, mask, step)["targets"]
        chosen = targets != -100
        assert not np.isin(tokens[chosen], [cls_id, sep_id]).any()


def test_a_stopped_bert_fine_tuning_run_resumes_exactly(recipe, tmp_path):
    assert_resumes_exactly(recipe, tmp_path)


def test_each_task_refuses_the_other_kind_of_folder(recipe, tmp_path, capsys):
    make_gpt2_folder(tmp_path / "tiny-gpt2")
    recipe.write_text(RECIPE.replace('"tiny-bert"', '"tiny-gpt2"'))
    assert main([str(recipe), "--out", str(tmp_path / "bad")]) != 0
    assert "cannot be fine-tuned by masked-LM" in capsys.readouterr().err
    from workbench.app.models_backend import ModelsBackend
    from workbench.core.events import JobFailed
    from workbench.core.jobs import JobControl, drive

    events = list(drive(ModelsBackend().folder_config_job(str(tmp_path / "tiny-bert")),
                        JobControl()))
    assert isinstance(events[-1], JobFailed)
    assert "cannot be fine-tuned as a language model" in events[-1].message
