"""A BERT folder read for sentence pairs (issue 33 item 1): a BertForPreTraining folder opens
with its real segment table and its next-sentence head, and gives the library's masked-LM and
next-sentence logits for [CLS] A [SEP] B [SEP] with segment ids 0 and 1 (fused and traced);
a BertForMaskedLM folder still opens as before, and fine-tuned with next-sentence prediction
it keeps its weights while that head starts fresh."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import make_bert_folder, reference_bert_pretraining
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, drive
from workbench.core.models import build_model
from workbench.core.predictions import FillMaskPrediction
from workbench.core.snapshot.rebuild import model_from_snapshot
from workbench.core.tasks import task_class
from workbench.core.tasks.pretrained_start import PretrainedStart
from workbench.core.tasks.text_data import TextVocabulary

FIRST, SECOND = "But soft, what light", "through yonder windows breaks"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_bert_folder(tmp_path_factory.mktemp("models") / "tiny-bert-pretraining",
                            pretraining=True)


@pytest.fixture(scope="module")
def opened(folder):
    snapshot = snapshot_from_checkpoint(folder)
    return snapshot, model_from_snapshot(snapshot).eval(), \
        TextVocabulary.from_dict(snapshot.tokenizer)


def pair_ids(vocabulary) -> tuple[torch.Tensor, torch.Tensor]:
    tokenizer = vocabulary.tokenizer
    a, b = tokenizer.encode(FIRST), tokenizer.encode(SECOND)
    (cls,), (sep,) = tokenizer.frame
    ids = [cls, *a, sep, *b, sep]
    return torch.tensor([ids]), torch.tensor([[0] * (len(a) + 2) + [1] * (len(b) + 1)])


def test_a_pair_gives_the_librarys_masked_lm_and_next_sentence_logits(folder, opened):
    snapshot, model, vocabulary = opened
    assert snapshot.model_config["next_sentence"]
    assert snapshot.model_config["encoder"]["segments"] == 2
    ids, segments = pair_ids(vocabulary)
    with torch.no_grad():
        expected = reference_bert_pretraining(folder)(ids, token_type_ids=segments)
        logits, pair = model(ids, segments=segments, pairs=True)
    np.testing.assert_allclose(logits[0].numpy(), expected.prediction_logits[0].numpy(),
                               atol=1e-5)
    np.testing.assert_allclose(pair[0].numpy(), expected.seq_relationship_logits[0].numpy(),
                               atol=1e-5)
    trace = model.trace(ids, segments=segments)
    np.testing.assert_allclose(trace.logits, expected.prediction_logits[0].numpy(), atol=1e-5)
    is_next = torch.softmax(expected.seq_relationship_logits[0], -1).numpy()
    np.testing.assert_allclose(trace.extras["next_sentence_probs"], is_next, atol=1e-5)
    np.testing.assert_array_equal(trace.extras["segment_ids"], segments[0].numpy())


def test_the_console_reads_a_pair_with_its_segments_and_is_next(folder, opened):
    snapshot, model, vocabulary = opened
    spec = task_class("masked_lm").predict(model, snapshot.tokenizer,
                                           f"{FIRST} [MASK] ||| {SECOND}", None)
    answer = [e for e in drive(spec, JobControl()) if isinstance(e, JobFinished)][0].result
    assert isinstance(answer, FillMaskPrediction)
    assert answer.tokens[0] == "[CLS]" and answer.tokens.count("[SEP]") == 2
    first_sep = answer.tokens.index("[SEP]")
    assert answer.segments == tuple([0] * (first_sep + 1)
                                    + [1] * (len(answer.tokens) - first_sep - 1))
    ids = [vocabulary.tokenizer.frame[0][0], *vocabulary.tokenizer.encode(FIRST),
           vocabulary.mask_id, vocabulary.tokenizer.frame[1][0],
           *vocabulary.tokenizer.encode(SECOND), vocabulary.tokenizer.frame[1][0]]
    with torch.no_grad():
        expected = reference_bert_pretraining(folder)(
            torch.tensor([ids]), token_type_ids=torch.tensor([list(answer.segments)]))
    want = float(torch.softmax(expected.seq_relationship_logits[0], -1)[0])
    assert answer.is_next == pytest.approx(want, abs=1e-5)


def test_a_masked_lm_folder_fine_tuned_for_pairs_starts_its_head_fresh(tmp_path):
    folder = make_bert_folder(tmp_path / "tiny-bert")
    snapshot = snapshot_from_checkpoint(folder)  # no next-sentence head: opened as before
    assert not snapshot.model_config.get("next_sentence")
    assert "segments" not in snapshot.model_config["encoder"] or \
        snapshot.model_config["encoder"]["segments"] == 0
    from workbench.core.pretrained import open_tokenizer

    torch.manual_seed(0)
    model = PretrainedStart(folder, 0.0, "masked_lm", next_sentence=True).build(
        open_tokenizer(folder), build_model).eval()
    assert model.next_sentence is not None
    plain = model_from_snapshot(snapshot).eval()
    ids = torch.tensor([open_tokenizer(folder).encode_prompt(FIRST)])
    with torch.no_grad():  # segment 0 everywhere: the folder's masked-LM numbers
        np.testing.assert_allclose(model(ids).numpy(), plain(ids).numpy(), atol=1e-5)
