"""The app's BERT-shaped models written as Hugging Face BERT folders (issue 34 item 3, "the
fine-tuned model saves as a Hugging Face folder"): the masked LM as BertForMaskedLM (tied and
untied), with its next-sentence head as BertForPreTraining, a classifier fine-tuned from a BERT
folder as BertForSequenceClassification (a sigmoid unit too), a tagger as
BertForTokenClassification, each loaded by `transformers` with the app's logits and the run's
labels; what BERT's classes cannot hold is refused by name, and no folder is made."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from test_pretrained_bert_tasks import write_recipe
from test_pretrained_export_llama import moved

from tests.core.pretrained_folders import make_bert_folder
from workbench.app.export_cli import main as export_main
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.models import config_to_dict
from workbench.core.config.task_models import ClassifierModelConfig
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_model
from workbench.core.pretrained.export import export_hf
from workbench.core.snapshot import Snapshot
from workbench.core.snapshot.rebuild import model_from_snapshot

TEXT = "juliet is the sun"


def loaded(folder, auto: str, expected: str):
    import transformers

    model = getattr(transformers, auto).from_pretrained(folder, local_files_only=True).eval()
    assert type(model).__name__ == expected
    return model


def encode(folder, text: str = TEXT) -> list[int]:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, local_files_only=True)(text)["input_ids"]


def app_logits(snapshot: Snapshot, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        return model_from_snapshot(snapshot).eval()(torch.tensor([ids]))[0].numpy()


@pytest.mark.parametrize("options", [{}, {"hidden_act": "gelu_new", "tie_word_embeddings": False}],
                         ids=["tied", "untied-tanh"])
def test_a_fine_tuned_bert_masked_lm_goes_back_with_the_apps_logits(tmp_path, options):
    folder = make_bert_folder(tmp_path / "tiny-bert", **options)
    snapshot = moved(snapshot_from_checkpoint(folder))
    out = export_hf(snapshot, tmp_path / "exported")
    assert (out / "tokenizer.json").read_text() == (folder / "tokenizer.json").read_text()
    ids = encode(out)
    assert ids == encode(folder)
    with torch.no_grad():
        theirs = loaded(out, "AutoModelForMaskedLM", "BertForMaskedLM")(
            torch.tensor([ids])).logits[0].numpy()
    np.testing.assert_allclose(theirs, app_logits(snapshot, ids), atol=1e-5)
    again = snapshot_from_checkpoint(out)  # it opens in the app again as the same model
    assert again.model_config == snapshot.model_config
    for name, value in snapshot.weights.items():
        np.testing.assert_allclose(again.weights[name], value, atol=1e-6, err_msg=name)


def test_the_masked_lm_with_next_sentence_goes_back_as_bert_for_pretraining(tmp_path):
    from transformers import BertConfig, BertForPreTraining

    folder = make_bert_folder(tmp_path / "tiny-bert")
    torch.manual_seed(4)
    BertForPreTraining(BertConfig.from_pretrained(folder)).save_pretrained(tmp_path / "pre")
    (tmp_path / "pre" / "tokenizer.json").write_text((folder / "tokenizer.json").read_text())
    snapshot = snapshot_from_checkpoint(tmp_path / "pre")
    if not snapshot.model_config.get("next_sentence"):
        pytest.skip("this checkout opens BERT without its next-sentence head")
    snapshot = moved(snapshot)
    out = export_hf(snapshot, tmp_path / "exported")
    from transformers import AutoTokenizer

    pair = AutoTokenizer.from_pretrained(out, local_files_only=True)("juliet is", "the sun")
    ids, segments = torch.tensor([pair["input_ids"]]), torch.tensor([pair["token_type_ids"]])
    reference = loaded(out, "AutoModelForPreTraining", "BertForPreTraining")
    with torch.no_grad():
        theirs = reference(ids, token_type_ids=segments)
        words, relation = model_from_snapshot(snapshot).eval()(ids, segments=segments,
                                                               pairs=True)
    np.testing.assert_allclose(theirs.prediction_logits.numpy(), words.numpy(), atol=1e-5)
    np.testing.assert_allclose(theirs.seq_relationship_logits.numpy(), relation.numpy(),
                               atol=1e-5)


@pytest.fixture
def bert_runs(tmp_path, monkeypatch):
    """A classifier and a tagger fine-tuned 2 steps from a BERT folder, as a run folder each."""
    from workbench.app.train_cli import main as train

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    make_bert_folder(tmp_path / "tiny-bert")
    runs = {}
    for task, extra in (("classify", 'pooling = "cls"\nbert_pooler = true'), ("tag", "")):
        recipe = write_recipe(tmp_path, task, extra)
        runs[task] = tmp_path / f"run-{task}"
        assert train([str(recipe), "--out", str(runs[task]), "--max-steps", "2"]) == 0
    return runs


def test_a_fine_tuned_classifier_and_tagger_go_back_with_their_labels(bert_runs, tmp_path):
    for task, auto, name in (("classify", "AutoModelForSequenceClassification",
                              "BertForSequenceClassification"),
                             ("tag", "AutoModelForTokenClassification",
                              "BertForTokenClassification")):
        snapshot = snapshot_from_checkpoint(bert_runs[task])
        out = tmp_path / f"hf-{task}"
        assert export_main([str(bert_runs[task]), "--hf", str(out)]) == 0
        names = snapshot.tokenizer["labels" if task == "classify" else "tags"]
        config = json.loads((out / "config.json").read_text())
        assert config["id2label"] == {str(i): label for i, label in enumerate(names)}
        assert config["label2id"] == {label: i for i, label in enumerate(names)}
        ids = encode(out)
        with torch.no_grad():
            theirs = loaded(out, auto, name)(torch.tensor([ids])).logits.numpy()
            mine = model_from_snapshot(snapshot).eval()(torch.tensor([ids])).numpy()
        np.testing.assert_allclose(theirs, mine, atol=1e-5, err_msg=task)


def classifier(bert: Snapshot, **head) -> Snapshot:
    config = ClassifierModelConfig(encoder=bert.model_config["encoder"], num_labels=2,
                                   **{"pooling": "cls", "cls_in_text": True, "pooler": True,
                                      **head})
    torch.manual_seed(5)
    model = build_model(config)
    weights = {k: v.numpy() for k, v in model.state_dict().items()}
    weights.update({k: v for k, v in bert.weights.items() if k.startswith("encoder.")})
    return moved(Snapshot(config_to_dict(config), weights,
                          {**bert.tokenizer, "labels": ["sad", "glad"]}))


def test_a_sigmoid_classifier_is_its_two_logits_zero_and_z(tmp_path):
    bert = snapshot_from_checkpoint(make_bert_folder(tmp_path / "tiny-bert"))
    snapshot = classifier(bert, output="sigmoid")
    out = export_hf(snapshot, tmp_path / "exported")
    ids = encode(out)
    with torch.no_grad():
        theirs = loaded(out, "AutoModelForSequenceClassification",
                        "BertForSequenceClassification")(torch.tensor([ids])).logits.numpy()
    np.testing.assert_allclose(theirs, app_logits(snapshot, ids)[None], atol=1e-5)
    assert theirs[0, 0] == 0.0  # [0, z]: softmax of the pair is the sigmoid unit's


def test_what_berts_classes_cannot_hold_is_refused_by_name(tmp_path):
    from workbench.core.config.models import TransformerEncoderConfig
    from workbench.core.config.task_models import MaskedLmModelConfig, TaggerModelConfig

    bert = snapshot_from_checkpoint(make_bert_folder(tmp_path / "tiny-bert"))
    cases = [
        (classifier(bert, pooling="mean"), ["mean pooling has no place in that class"]),
        (classifier(bert, pooler=False), ["BERT's pooler must be on"]),
    ]
    encoder = TransformerEncoderConfig(vocab_size=bert.model_config["encoder"]["vocab_size"],
                                       d_model=16, num_heads=2, num_layers=1, d_ff=24,
                                       context_length=16, norm_placement="pre", cls_token=True,
                                       positional="sinusoidal")
    masked = MaskedLmModelConfig(encoder=config_to_dict(encoder), head_activation="gelu")
    cases.append((Snapshot(config_to_dict(masked), {}, bert.tokenizer),
                  ["post-LN", "Positions must be learned, not sinusoidal",
                   "Embedding LayerNorm must be on", "[CLS] token must be off",
                   "head's activation (gelu) must be the encoder's (relu)"]))
    lstm = TaggerModelConfig(encoder={"arch": "lstm", "vocab_size": 50}, num_tags=3)
    cases.append((Snapshot(config_to_dict(lstm), {}, bert.tokenizer),
                  ["BertForTokenClassification", "its encoder is LSTM"]))
    for i, (snapshot, words) in enumerate(cases):
        with pytest.raises(UserFacingError) as refused:
            export_hf(snapshot, tmp_path / f"no-{i}")
        for word in words:
            assert word in str(refused.value), str(refused.value)
        assert not (tmp_path / f"no-{i}").exists()
