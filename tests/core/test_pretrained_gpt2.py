"""A GPT-2 folder opened as the app's own transformer (issue 34): the numbers are the model's
own (logits, every layer's and head's attention, the worked q·k computation, greedy
generation all equal `transformers`' within 1e-5), its tokens read as text, and every damaged
or unsupported folder gets a message that says what to do."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import make_gpt2_folder, reference_gpt2
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.generation import GenerationConfig
from workbench.core.corpus.text_stream import ByteTextStream, text_stream
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.events import JobFinished
from workbench.core.generation.generate import generation_job
from workbench.core.jobs import JobControl, drive
from workbench.core.snapshot.rebuild import model_from_snapshot

PROBE = "But soft, what light through yonder window"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_gpt2_folder(tmp_path_factory.mktemp("models") / "tiny-gpt2")


@pytest.fixture(scope="module")
def opened(folder):
    snapshot = snapshot_from_checkpoint(folder)
    return snapshot, model_from_snapshot(snapshot).eval(), tokenizer_from_dict(snapshot.tokenizer)


def test_logits_and_every_heads_attention_are_gpt2s_own(folder, opened):
    snapshot, model, tokenizer = opened
    ids = torch.tensor([tokenizer.encode(PROBE)])
    with torch.no_grad():
        expected = reference_gpt2(folder)(ids, output_attentions=True)
        logits, _ = model(ids)
    trace = model.trace(ids)
    assert snapshot.arch == "transformer" and snapshot.model_config["activation"] == "gelu_tanh"
    np.testing.assert_allclose(logits[0].numpy(), expected.logits[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.logits, expected.logits[0].numpy(), atol=1e-5)
    assert len(trace.layers) == len(expected.attentions) == 2
    for layer, weights in zip(trace.layers, expected.attentions, strict=True):
        assert layer.values["attn"].shape == (4, ids.shape[1], ids.shape[1])
        np.testing.assert_allclose(layer.values["attn"], weights[0].numpy(), atol=1e-5)


def test_the_worked_computation_from_q_and_k_gives_the_attention_gpt2_returns(folder, opened):
    """What the click-a-cell view writes out: softmax(q·k / √d_k + M) over one row."""
    _, model, tokenizer = opened
    ids = torch.tensor([tokenizer.encode(PROBE)])
    with torch.no_grad():
        expected = reference_gpt2(folder)(ids, output_attentions=True).attentions[1][0]
    values = model.trace(ids).layers[1].values
    head, row = 2, ids.shape[1] - 1
    q, k = values["q"][head, row], values["k"][head, : row + 1]
    scores = k @ q / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max())
    np.testing.assert_allclose(weights / weights.sum(), expected[head, row, : row + 1].numpy(),
                               atol=1e-5)


def test_greedy_generation_matches_transformers_generate(folder, opened):
    snapshot, model, tokenizer = opened
    prompt = "the cat"
    config = GenerationConfig(strategy="greedy", max_tokens=12)
    events = list(drive(generation_job(model, tokenizer, prompt, config), JobControl()))
    result = events[-1].result
    assert isinstance(events[-1], JobFinished)
    ids = torch.tensor([tokenizer.encode(prompt)])
    reference = reference_gpt2(folder).generate(ids, max_new_tokens=12, do_sample=False,
                                                pad_token_id=tokenizer.eos_id)
    expected = reference[0, ids.shape[1]:].tolist()
    assert list(result.token_ids) == expected[: len(result.token_ids)]
    if tokenizer.eos_id in expected:  # the console stops where GPT-2 writes <|endoftext|>
        assert result.stopped_by == "end token"


def test_its_tokens_read_as_text_and_its_specials_are_its_own(opened):
    snapshot, _, tokenizer = opened
    eos = tokenizer.vocab_size - 1
    assert tokenizer.eos_id == tokenizer.bos_id == eos  # <|endoftext|>, as in GPT-2
    assert tokenizer.special_ids == {eos}
    assert tokenizer.token(eos) == "<|endoftext|>"
    pieces = [tokenizer.readable_token(i) for i in tokenizer.encode("the cat sat")]
    assert "".join(pieces) == "the cat sat" and not any("Ġ" in p for p in pieces)
    assert tokenizer.encode_prompt("") == [] and tokenizer.decode([eos]) == ""
    stream = text_stream(tokenizer)
    assert isinstance(stream, ByteTextStream)
    assert "".join(stream.add(i) for i in tokenizer.encode("yonder — window")) == \
        "yonder — window"
    # ids 0-3 are ordinary pieces here, not the app's <pad>, <unk>, <bos>, <eos>
    assert all(tokenizer.token(i) not in ("<pad>", "<unk>", "<bos>", "<eos>") for i in range(4))
    assert json.loads(json.dumps(snapshot.tokenizer))["kind"] == "pretrained"


def test_an_empty_prompt_starts_from_endoftext(opened):
    _, model, tokenizer = opened
    config = GenerationConfig(strategy="greedy", max_tokens=3)
    events = list(drive(generation_job(model, tokenizer, "", config), JobControl()))
    assert isinstance(events[-1], JobFinished)


def test_a_pytorch_model_bin_opens_with_the_same_numbers(tmp_path, folder, opened):
    binary = make_gpt2_folder(tmp_path / "bin-gpt2", safetensors=False)
    assert (binary / "pytorch_model.bin").is_file()
    model = model_from_snapshot(snapshot_from_checkpoint(binary / "config.json")).eval()
    ids = torch.tensor([[5, 17, 40, 99]])
    with torch.no_grad():
        np.testing.assert_allclose(model(ids)[0].numpy(), opened[1](ids)[0].numpy(),
                                   atol=1e-6)


def test_picking_a_file_of_the_folder_opens_the_folder(folder, opened):
    snapshot = snapshot_from_checkpoint(folder / "model.safetensors")
    assert snapshot.run_dir == opened[0].run_dir and snapshot.label == "tiny-gpt2 (pretrained)"
