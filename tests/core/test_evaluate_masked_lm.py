"""`workbench evaluate` on a masked LM (issue 34): the masked-token loss and accuracy equal a
hand computation through the model for the same seeded corruption (the app's own masked LM,
and a BERT folder through the CLI against `transformers`); a next-sentence model also scores
its seeded pairs; an empty or binary file is refused."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch
from test_encoder_tasks import prepared, training
from torch.nn import functional as F

from tests.core.pretrained_folders import make_bert_folder, reference_bert
from workbench.app.evaluate_cli import main
from workbench.core.config.encoder_tasks import MaskedLmTaskConfig
from workbench.core.config.models import TransformerEncoderConfig
from workbench.core.config.tasks import task_config_to_dict
from workbench.core.data.masking import corrupt
from workbench.core.evaluation.masked_lm_evaluate import evaluate_masked_lm
from workbench.core.models import build_model
from workbench.core.snapshot import Snapshot
from workbench.core.tasks import build_task
from workbench.core.tasks.text_data import FIRST_ORDINARY, TextVocabulary

LINES = ["but soft what light through yonder window breaks",
         "it is the east and juliet is the sun", "arise fair sun and kill the envious moon",
         "who is already sick and pale with grief", "that thou her maid art far more fair",
         "the brightness of her cheek would shame those stars", "see how she leans her cheek",
         "o that i were a glove upon that hand", "she speaks yet she says nothing"]
ENCODER = TransformerEncoderConfig(vocab_size=0, d_model=16, num_heads=2, num_layers=2,
                                   d_ff=32, context_length=24, dropout=0.0,
                                   positional="learned")


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def hand_scores(logits_of, rows: list[list[int]], frame: list[int], mask_id: int,
                vocab_size: int, seed: int, pad: int = 0):
    """(loss per masked token, share recovered, masked count): the sentences padded into one
    batch, corrupted by `masking.corrupt` with validation's key for a first batch, and the
    cross-entropy of `logits_of(inputs, mask)` (B, S, V) at the chosen positions."""
    width = max(len(r) for r in rows)
    tokens = np.full((len(rows), width), pad, dtype=np.int64)
    mask = np.zeros_like(tokens, dtype=bool)
    for i, row in enumerate(rows):
        tokens[i, :len(row)], mask[i, :len(row)] = row, True
    chosen_ok = mask & ~np.isin(tokens, frame)
    corrupted = corrupt(tokens, chosen_ok, np.random.default_rng([seed, 1, 0]), mask_id,
                        FIRST_ORDINARY, vocab_size)
    with torch.no_grad():
        logits = logits_of(torch.tensor(corrupted.inputs), torch.tensor(mask))
    chosen = torch.tensor(corrupted.chosen)
    picked, targets = logits[chosen].float(), torch.tensor(corrupted.targets)[chosen]
    return (float(F.cross_entropy(picked, targets)),
            int((picked.argmax(-1) == targets).sum()) / int(chosen.sum()), int(chosen.sum()))


def test_the_apps_masked_lm_scores_as_by_hand(tmp_path):
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES), encoding="utf-8")
    config = MaskedLmTaskConfig(dataset="file", path=str(text), min_words=2, max_length=24,
                                val_fraction=0.2)
    data, _ = prepared(config, training())
    torch.manual_seed(0)
    model = build_task(config, data).build_model(dataclasses.replace(ENCODER), build_model)
    model.eval()
    vocabulary = data.vocabulary.to_dict(mask_id=data.vocabulary.mask_id)
    snapshot = Snapshot({}, {}, vocabulary, task=task_config_to_dict(config))
    report = evaluate_masked_lm(model, snapshot, text, seed=5)
    words = TextVocabulary.from_dict(vocabulary)
    rows = [words.tokenizer.encode(line) for line in LINES]
    loss, accuracy, masked = hand_scores(lambda ids, mask: model(ids, mask), rows, [],
                                         words.mask_id, words.tokenizer.vocab_size, seed=5)
    assert report.items == len(LINES) and report.results["masked_tokens"] == masked > 0
    assert abs(report.metrics["loss"] - loss) < 1e-5
    assert report.metrics["accuracy"] == pytest.approx(accuracy, abs=1e-9)
    again = evaluate_masked_lm(model, snapshot, text, seed=6)
    assert again.metrics["loss"] != report.metrics["loss"]  # another seed, other blanks


def test_a_bert_folder_evaluates_through_the_cli_as_transformers_scores_it(tmp_path, capsys):
    from tokenizers import Tokenizer

    folder = make_bert_folder(tmp_path / "tiny-bert")
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES) + "\n\nact i\n", encoding="utf-8")  # a short line
    assert main([str(folder), str(text), "--json", "--seed", "7"]) == 0
    report = json.loads(capsys.readouterr().out)
    library = Tokenizer.from_str((folder / "tokenizer.json").read_text(encoding="utf-8"))
    rows = [library.encode(line).ids for line in LINES]  # [CLS] … [SEP], as BERT reads
    frame = [library.token_to_id("[CLS]"), library.token_to_id("[SEP]")]
    reference = reference_bert(folder)
    loss, accuracy, masked = hand_scores(
        lambda ids, mask: reference(ids, attention_mask=mask.long()).logits, rows, frame,
        library.token_to_id("[MASK]"), library.get_vocab_size(), seed=7)
    assert report["task"] == "masked_lm" and report["items"] == len(LINES)
    assert report["results"]["masked_tokens"] == masked
    assert abs(report["metrics"]["loss"] - loss) < 1e-5
    assert report["metrics"]["accuracy"] == pytest.approx(accuracy, abs=1e-9)
    assert any("1 lines under 3 words" in n for n in report["notes"])
    assert main([str(folder), str(text)]) == 0
    shown = capsys.readouterr().out
    assert "loss" in shown and "masked tokens" in shown


def test_a_next_sentence_folder_scores_its_seeded_pairs(tmp_path, capsys):
    folder = make_bert_folder(tmp_path / "tiny-bert-pretraining", pretraining=True)
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(LINES * 4), encoding="utf-8")
    reports = []
    for _ in range(2):
        assert main([str(folder), str(text), "--json"]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    report = reports[0]
    assert reports[1] == report  # one seed, one set of pairs and blanks
    assert report["item_name"] == "sentence pairs"
    # 36 lines in blocks of 32 consecutive ones, as the task cuts them: 31 + 3 pairs
    assert report["items"] == report["results"]["pairs"] == 34
    assert set(report["metrics"]) == {"loss", "accuracy", "nsp_loss", "nsp_accuracy"}
    assert 0.3 < report["metrics"]["nsp_loss"] < 1.5 and report["results"]["masked_tokens"] > 0


@pytest.mark.parametrize("content, said", [(b"", "holds no sentences"),
                                           (bytes(range(256)), "is not UTF-8")])
def test_an_empty_or_binary_file_is_refused(tmp_path, capsys, content, said):
    folder = make_bert_folder(tmp_path / "tiny-bert")
    data = tmp_path / "data.txt"
    data.write_bytes(content)
    assert main([str(folder), str(data)]) == 2
    assert said in capsys.readouterr().err
