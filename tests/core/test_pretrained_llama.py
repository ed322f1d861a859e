"""A Llama folder opened as the app's own transformer (issue 34): RMSNorm, rotary positions,
SwiGLU, grouped-query attention and no biases, in the fused path, the KV cache and the
transcribed trace alike. The numbers are the model's own (logits, every layer's and head's
attention, the worked q·k computation on the rotated q and k, greedy generation all equal
`transformers`' LlamaForCausalLM within 1e-5), tied and untied; its SentencePiece tokens read
as text; and what the app does not compute is refused by name."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import make_llama_folder, reference_llama
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.generation import GenerationConfig
from workbench.core.corpus.text_stream import ByteTextStream, text_stream
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.events import JobFinished
from workbench.core.generation.generate import generation_job
from workbench.core.jobs import JobControl, UserFacingError, drive
from workbench.core.pretrained.export import export_gpt2
from workbench.core.snapshot.rebuild import model_from_snapshot
from workbench.core.worked.attention import attention_computation

PROBE = "But soft, what light through yonder window"


@pytest.fixture(scope="module", params=["untied", "tied"])
def folder(request, tmp_path_factory):
    tied = request.param == "tied"
    return make_llama_folder(tmp_path_factory.mktemp("models") / f"tiny-llama-{request.param}",
                             tie_word_embeddings=tied)


@pytest.fixture(scope="module")
def opened(folder):
    snapshot = snapshot_from_checkpoint(folder)
    return snapshot, model_from_snapshot(snapshot).eval(), tokenizer_from_dict(snapshot.tokenizer)


@pytest.fixture(scope="module")
def reference(folder):
    return reference_llama(folder)


def probe_ids(tokenizer) -> torch.Tensor:
    return torch.tensor([tokenizer.encode_prompt(PROBE)])


def test_it_opens_as_the_transformer_with_llamas_options(folder, opened):
    snapshot, model, _ = opened
    config = snapshot.model_config
    assert snapshot.arch == "transformer" and snapshot.task == {}
    assert (config["positional"], config["norm"], config["norm_placement"]) == \
        ("rope", "rmsnorm", "pre")
    assert config["gated_ffn"] and config["activation"] == "silu"
    assert not config["linear_bias"] and not config["head_bias"]
    assert config["kv_heads"] == 2 and config["norm_eps"] == 1e-5
    assert config["tie_weights"] == folder.name.endswith("-tied")
    assert model.blocks[0].qkv.weight.shape == (32 + 2 * 2 * 8, 32)  # q, then 2 kv heads each
    if config["tie_weights"]:  # one tensor: no lm_head.weight of its own is read
        assert model.head.weight.data_ptr() == model.embedding.weight.data_ptr()


def test_logits_and_every_heads_attention_are_llamas_own(opened, reference):
    _, model, tokenizer = opened
    ids = probe_ids(tokenizer)
    with torch.no_grad():
        expected = reference(ids, output_attentions=True)
        logits, _ = model(ids)
    trace = model.trace(ids)
    np.testing.assert_allclose(logits[0].numpy(), expected.logits[0].numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.logits, expected.logits[0].numpy(), atol=1e-5)
    assert len(trace.layers) == len(expected.attentions) == 2
    for layer, weights in zip(trace.layers, expected.attentions, strict=True):
        assert layer.values["attn"].shape == (4, ids.shape[1], ids.shape[1])
        assert layer.values["k"].shape == layer.values["q"].shape  # repeated to every head
        np.testing.assert_allclose(layer.values["attn"], weights[0].numpy(), atol=1e-5)


def test_the_worked_computation_reads_the_rotated_q_and_k(opened, reference):
    """softmax(q̃·k̃ / √d_k + M) over one row from the trace's q and k equals Llama's
    attention; the click-a-cell computation, from the snapshot's weights, says q and k are
    rotated and gives the same row and output."""
    snapshot, model, tokenizer = opened
    ids = probe_ids(tokenizer)
    with torch.no_grad():
        expected = reference(ids, output_attentions=True).attentions[1][0].numpy()
    trace = model.trace(ids)
    values = trace.layers[1].values
    head, row = 3, ids.shape[1] - 1
    q, k = values["q"][head, row], values["k"][head, : row + 1]
    scores = k @ q / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max())
    np.testing.assert_allclose(weights / weights.sum(), expected[head, row, : row + 1],
                               atol=1e-5)
    worked = attention_computation(values, snapshot.weights, "blocks.1.", head, row, 2,
                                   trace.token_text)
    np.testing.assert_allclose(worked.values["alpha_row"], expected[head, row], atol=1e-5)
    np.testing.assert_allclose(worked.values["output"], values["attn_out"][row], atol=1e-5)
    np.testing.assert_allclose(worked.values["q"], values["q"][head, row], atol=1e-5)
    labels = [line.label for line in worked.lines]
    assert labels[:6] == ["query row", "query", "key", "rotated query", "rotated key", "score"]
    assert "b^Q" not in worked.lines[1].formula and "key/value head 1 of 2" in \
        worked.lines[2].formula


def test_the_views_say_positions_turn_q_and_k(opened):
    _, model, tokenizer = opened
    trace = model.trace(probe_ids(tokenizer))
    convention = trace.layers[0].convention
    assert "rotary positions (RoPE, θ = 10000)" in convention and "q and k are rotated" in \
        convention
    assert "pre-RMSNorm" in convention and "2 key/value heads" in convention
    assert "SwiGLU" in convention
    assert "positional" not in trace.extras  # nothing is added to the embeddings
    angles = trace.extras["rotary_angles"]
    assert angles.shape == (len(trace.tokens), 4)
    np.testing.assert_allclose(angles[3], 3 * 10000.0 ** (-np.arange(0, 8, 2) / 8), rtol=1e-6)


def test_greedy_generation_through_the_kv_cache_matches_generate(opened, reference):
    _, model, tokenizer = opened
    prompt = "the cat"
    ids = torch.tensor([tokenizer.encode_prompt(prompt)])
    assert ids[0, 0].item() == 1  # <s>, as its tokenizer's post-processor starts a text
    # 20 tokens through the app's cache, one at a time, against generate's own cache
    with torch.no_grad():
        logits, cache = model.forward_cached(ids, None)
        written = []
        for _ in range(20):
            written.append(int(logits[0, -1].argmax()))
            logits, cache = model.forward_cached(torch.tensor([[written[-1]]]), cache)
        reference.generation_config.eos_token_id = None  # 20 tokens, an end token or not
        expected = reference.generate(ids, max_new_tokens=20, do_sample=False,
                                      pad_token_id=0)[0, ids.shape[1]:].tolist()
    assert written == expected
    # the console (its stepper runs the same cache) stops where Llama writes </s>
    config = GenerationConfig(strategy="greedy", max_tokens=20)
    events = list(drive(generation_job(model, tokenizer, prompt, config), JobControl()))
    assert isinstance(events[-1], JobFinished)
    result = events[-1].result
    assert list(result.token_ids) == expected[: len(result.token_ids)]
    if tokenizer.eos_id in expected:
        assert result.stopped_by == "end token"


def test_its_pieces_read_as_text_and_its_specials_are_its_own(opened):
    _, _, tokenizer = opened
    assert (tokenizer.bos_id, tokenizer.eos_id) == (1, 2)
    assert tokenizer.special_ids == {0, 1, 2}  # <unk>, <s>, </s>
    ids = tokenizer.encode("the cat sat")
    pieces = [tokenizer.readable_token(i) for i in ids]
    assert "".join(pieces) == " the cat sat" and not any("▁" in p for p in pieces)
    assert tokenizer.encode_prompt("the cat") == [1, *tokenizer.encode("the cat")]
    # "—" has no piece of its own: three byte pieces, shown as bytes, joined when streamed
    dash = tokenizer.encode("yonder — window")
    assert [tokenizer.readable_token(i) for i in dash].count("<0xE2>") == 1
    stream = text_stream(tokenizer)
    assert isinstance(stream, ByteTextStream)
    assert "".join(stream.add(i) for i in dash) + stream.end() == " yonder — window"
    assert tokenizer.decode(dash) == "yonder — window"


@pytest.mark.slow
def test_an_older_config_with_rope_theta_and_no_scaling_opens_the_same(tmp_path):
    """TinyLlama's and SmolLM's config.json say rope_theta and rope_scaling: null, not the
    rope_parameters transformers 5 writes; a base other than 10000 must reach the angles."""
    folder = make_llama_folder(tmp_path / "old-llama", rope_theta=500000.0)
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.pop("rope_parameters", None)
    config.update(rope_theta=500000.0, rope_scaling=None, head_dim=None)
    path.write_text(json.dumps(config))
    snapshot = snapshot_from_checkpoint(folder)
    assert snapshot.model_config["rope_theta"] == 500000.0
    model, tokenizer = model_from_snapshot(snapshot).eval(), \
        tokenizer_from_dict(snapshot.tokenizer)
    ids = probe_ids(tokenizer)
    with torch.no_grad():
        np.testing.assert_allclose(model(ids)[0][0].numpy(),
                                   reference_llama(folder)(ids).logits[0].numpy(), atol=1e-5)


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return make_llama_folder(tmp_path_factory.mktemp("models") / "llama-good")


@pytest.fixture
def copy(tmp_path, original):
    return shutil.copytree(original, tmp_path / "llama-copy")


def refusal(folder, **changes) -> str:
    path = folder / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))
    with pytest.raises(UserFacingError) as caught:
        snapshot_from_checkpoint(folder)
    return str(caught.value)


@pytest.mark.parametrize("option, words", [
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, "'rope_scaling'"),
    ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4}},
     "rotary positions of type 'linear'"),
    ({"attention_bias": True}, "'attention_bias'"),
    ({"mlp_bias": True}, "'mlp_bias'"),
    ({"sliding_window": 16}, "'sliding_window'"),
    ({"hidden_act": "gelu"}, "activation 'gelu'"),
    ({"head_dim": 16}, "'head_dim'"),
    ({"num_key_value_heads": 3}, "Key/value heads (3) must divide the heads (4)"),
    ({"hidden_size": "wide"}, "'hidden_size' as 'wide'"),
])
def test_what_the_transformer_does_not_compute_is_refused_by_name(copy, option, words):
    assert words in refusal(copy, **option)


def test_sharded_or_missing_weights_say_what_to_copy(copy):
    (copy / "model.safetensors").rename(copy / "model-00001-of-00002.safetensors")
    (copy / "model.safetensors.index.json").write_text("{}")
    assert "several shards" in refusal(copy)
    (copy / "model.safetensors.index.json").unlink()
    assert "has no model.safetensors" in refusal(copy)


def test_weights_of_another_shape_are_named_by_tensor(copy):
    message = refusal(copy, num_key_value_heads=4)  # k and v saved for 2 heads, not 4
    assert "shape" in message and "blocks.0.qkv.weight" in message


def test_a_llama_shaped_model_does_not_export_as_gpt2(opened, tmp_path):
    """`workbench export MODEL --hf` names every option a GPT-2 folder cannot hold."""
    with pytest.raises(UserFacingError) as caught:
        export_gpt2(opened[0], tmp_path / "as-gpt2")
    for words in ("RMSNorm", "rotary (RoPE)", "Gated FFN", "Key/value heads", "Biases",
                  "activation silu"):
        assert words in str(caught.value)
    assert not (tmp_path / "as-gpt2").exists()
