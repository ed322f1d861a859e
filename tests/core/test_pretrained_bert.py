"""A BERT folder opened as the app's own masked-LM model (issue 34): the numbers are the
model's own (logits and every layer's and head's attention equal `BertForMaskedLM`'s within
1e-5, through the fused forward, the transparent trace and the worked q·k computation), text
is read as BERT reads it ([CLS] text [SEP], its own [MASK]), its "##" pieces read as text, the
fill-in-the-blank answer is the library's, and generation is refused with a reason."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import make_bert_folder, reference_bert
from workbench.app.inspection_backend import InspectionBackend, snapshot_from_checkpoint
from workbench.core.config.generation import GenerationConfig
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.predictions import FillMaskPrediction
from workbench.core.snapshot.rebuild import model_from_snapshot
from workbench.core.tasks.text_data import TextVocabulary
from workbench.core.worked.attention import attention_computation

PROBE = "But soft, what light through yonder windows breaks"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_bert_folder(tmp_path_factory.mktemp("models") / "tiny-bert")


@pytest.fixture(scope="module")
def opened(folder):
    snapshot = snapshot_from_checkpoint(folder)
    vocabulary = TextVocabulary.from_dict(snapshot.tokenizer)
    return snapshot, model_from_snapshot(snapshot).eval(), vocabulary


@pytest.fixture(scope="module")
def reference(folder):
    return reference_bert(folder)


def last(spec):
    events = list(drive(spec, JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result


def test_logits_and_every_heads_attention_are_berts_own(opened, reference):
    snapshot, model, vocabulary = opened
    ids = torch.tensor([vocabulary.tokenizer.encode_prompt(PROBE)])
    with torch.no_grad():
        expected = reference(ids, output_attentions=True)
        logits = model(ids)
    trace = model.trace(ids)
    assert snapshot.arch == "masked_lm" and snapshot.task_name == "masked_lm"
    encoder = snapshot.model_config["encoder"]
    assert encoder["embedding_norm"] and encoder["norm_eps"] == 1e-12
    assert encoder["norm_placement"] == "post" and encoder["activation"] == "gelu"
    np.testing.assert_allclose(logits[0].numpy(), expected.logits[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.logits, expected.logits[0].numpy(), atol=1e-5)
    assert len(trace.layers) == len(expected.attentions) == 2
    for layer, weights in zip(trace.layers, expected.attentions, strict=True):
        assert layer.values["attn"].shape == (4, ids.shape[1], ids.shape[1])
        np.testing.assert_allclose(layer.values["attn"], weights[0].numpy(), atol=1e-5)


def test_the_worked_computation_gives_the_attention_bert_returns(opened, reference):
    """What the click-a-cell view writes out, softmax(q·k / √d_k) over a whole row (no causal
    mask in an encoder), from the trace's q and k and from the snapshot's own weights."""
    snapshot, model, vocabulary = opened
    ids = torch.tensor([vocabulary.tokenizer.encode_prompt(PROBE)])
    with torch.no_grad():
        expected = reference(ids, output_attentions=True).attentions[1][0]
    values = model.trace(ids).layers[1].values
    head, row = 2, 3
    q, k = values["q"][head, row], values["k"][head]
    scores = k @ q / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max())
    np.testing.assert_allclose(weights / weights.sum(), expected[head, row].numpy(), atol=1e-5)
    worked = attention_computation(values, snapshot.weights, "blocks.1.", head, row, 5,
                                   [str(i) for i in ids[0].tolist()], causal=False)
    np.testing.assert_allclose(worked.values["alpha_row"], expected[head, row].numpy(),
                               atol=1e-5)


def test_the_inspectors_probe_reads_cls_text_sep_with_readable_pieces(opened, reference):
    snapshot, _, vocabulary = opened
    trace = last(InspectionBackend().probe_job(snapshot, PROBE, gradients=True))
    tokenizer = vocabulary.tokenizer
    assert trace.token_text[0] == "[CLS]" and trace.token_text[-1] == "[SEP]"
    assert "".join(trace.token_text[1:-1]) == " but soft , what light through yonder windows " \
                                              "breaks"
    assert not any("##" in t for t in trace.token_text)
    ids = torch.tensor([list(trace.tokens)])
    assert ids[0, 0] == tokenizer.frame[0][0] and ids[0, -1] == tokenizer.frame[1][0]
    with torch.no_grad():
        expected = reference(ids, output_attentions=True).attentions
    for layer, weights in zip(trace.layers, expected, strict=True):
        np.testing.assert_allclose(layer.values["attn"], weights[0].numpy(), atol=1e-5)
    assert "topk_ids" not in trace.extras  # not a next-token model


def test_its_mask_is_the_vocabularys_own(opened, folder):
    import json

    snapshot, _, vocabulary = opened
    added = {t["content"]: t["id"] for t in json.loads(
        (folder / "tokenizer.json").read_text())["added_tokens"]}
    assert vocabulary.mask_id == added["[MASK]"] == snapshot.tokenizer["mask_id"]
    assert vocabulary.size == vocabulary.tokenizer.vocab_size == \
        snapshot.model_config["encoder"]["vocab_size"]
    assert vocabulary.tokenizer.encode("[MASK]") == [added["[MASK]"]]
    assert vocabulary.tokenizer.frame == ((added["[CLS]"],), (added["[SEP]"],))


def test_fill_in_the_blank_is_the_librarys_argmax(opened, reference):
    snapshot, _, vocabulary = opened
    text = "but soft, what [MASK] through yonder [MASK] breaks"
    answer = last(InspectionBackend().answer_job(snapshot, text))
    assert isinstance(answer, FillMaskPrediction)
    tokenizer = vocabulary.tokenizer
    ids = tokenizer.encode(text)  # the library reads [MASK] as its special token
    framed = torch.tensor([[*tokenizer.frame[0], *ids, *tokenizer.frame[1]]])
    where = [i for i, t in enumerate(framed[0].tolist()) if t == vocabulary.mask_id]
    assert answer.masked == tuple(where) and answer.tokens[0] == "[CLS]"
    with torch.no_grad():
        logits = reference(framed).logits[0, where]
    logits[:, vocabulary.special_ids] = float("-inf")  # no answer is [PAD], [CLS], [MASK] …
    probs = torch.softmax(logits, dim=-1)
    for m, row in enumerate(probs):
        best = int(row.argmax())
        assert answer.candidates[m][0] == tokenizer.readable_token(best)
        assert abs(answer.probs[m][0] - float(row[best])) < 1e-5


def test_generation_is_refused_with_what_to_do_instead(opened, folder, capsys):
    from workbench.app.generate_cli import main

    snapshot, _, _ = opened
    with pytest.raises(UserFacingError, match="Views for its task: fill_mask"):
        InspectionBackend().generation_job(snapshot, "the", GenerationConfig())
    assert main([str(folder), "--prompt", "the cat"]) == 2
    assert "not a language model" in capsys.readouterr().err


def test_predict_on_the_command_line_fills_the_blank(folder, capsys):
    from workbench.app.predict_cli import main

    assert main([str(folder), "the cat sat on the [MASK]."]) == 0
    assert "[MASK] 1:" in capsys.readouterr().out


def test_a_pytorch_model_bin_opens_with_the_same_numbers(tmp_path, opened):
    binary = make_bert_folder(tmp_path / "bin-bert", safetensors=False)
    assert (binary / "pytorch_model.bin").is_file()
    model = model_from_snapshot(snapshot_from_checkpoint(binary / "config.json")).eval()
    ids = torch.tensor([[2, 17, 40, 60, 3]])
    with torch.no_grad():
        np.testing.assert_allclose(model(ids).numpy(), opened[1](ids).numpy(), atol=1e-6)


@pytest.mark.slow
def test_an_untied_bert_with_the_tanh_gelu_matches_too(tmp_path):
    folder = make_bert_folder(tmp_path / "untied", seed=1, tie_word_embeddings=False,
                              hidden_act="gelu_new")
    snapshot = snapshot_from_checkpoint(folder)
    assert snapshot.model_config["head_activation"] == "gelu_tanh"
    model = model_from_snapshot(snapshot).eval()
    ids = torch.tensor([[2, 30, 31, 4, 50, 3]])
    with torch.no_grad():
        expected = reference_bert(folder)(ids).logits
        np.testing.assert_allclose(model(ids).numpy(), expected.numpy(), atol=1e-5)
