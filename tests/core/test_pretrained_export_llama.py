"""The app's Llama-shaped transformer written as a Hugging Face LlamaForCausalLM folder (issue
34 item 3, "the fine-tuned model saves as a Hugging Face folder"): an opened Llama folder with
its weights moved (as fine-tuning moves them) and a Llama-shaped model the app made itself both
load in `transformers` with the app's logits; the tokenizer encodes as the folder's did; a
LoRA run goes out merged; a decoder that neither GPT-2 nor Llama can hold is refused with each
family's settings named."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import TEXT, make_llama_folder
from workbench.app.export_cli import main as export_main
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.models import TransformerConfig, config_to_dict
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_model
from workbench.core.pretrained.export import export_hf
from workbench.core.snapshot import Snapshot
from workbench.core.snapshot.rebuild import model_from_snapshot

PROBE = "But soft, what light through yonder window"
LLAMA_LIKE = dict(d_model=32, num_heads=4, kv_heads=2, num_layers=2, d_ff=48, context_length=48,
                  dropout=0.0, positional="rope", norm_placement="pre", norm="rmsnorm",
                  norm_eps=1e-6, rope_theta=500.0, gated_ffn=True, activation="silu",
                  linear_bias=False, head_bias=False)


def moved(snapshot: Snapshot, seed: int = 0) -> Snapshot:
    """The snapshot with every weight moved off the folder's, as fine-tuning moves them; a
    tensor shared by two names (a tied head) stays one tensor."""
    rng = np.random.default_rng(seed)
    new: dict[int, np.ndarray] = {}
    for value in snapshot.weights.values():
        if id(value) not in new:
            new[id(value)] = value + rng.normal(0, 0.05, value.shape).astype(np.float32)
    return dataclasses.replace(snapshot, weights={k: new[id(v)]
                                                  for k, v in snapshot.weights.items()})


def transformers_logits(folder, ids: list[int]) -> np.ndarray:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True).eval()
    assert type(model).__name__ == "LlamaForCausalLM"
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0].numpy()


def app_logits(snapshot: Snapshot, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        logits, _ = model_from_snapshot(snapshot).eval()(torch.tensor([ids]))  # and its state
    return logits[0].numpy()


@pytest.mark.parametrize("tied", [False, True])
def test_a_fine_tuned_llama_folder_goes_back_with_the_apps_logits(tmp_path, tied):
    from transformers import AutoTokenizer

    folder = make_llama_folder(tmp_path / "tiny-llama", tie_word_embeddings=tied,
                               rms_norm_eps=1e-6, rope_theta=500.0)
    snapshot = moved(snapshot_from_checkpoint(folder))
    out = export_hf(snapshot, tmp_path / "exported")
    config = json.loads((out / "config.json").read_text())
    assert (config["model_type"], config["num_key_value_heads"]) == ("llama", 2)
    assert (config["rms_norm_eps"], config["rope_theta"]) == (1e-6, 500.0)
    assert config["tie_word_embeddings"] is tied
    assert (config["bos_token_id"], config["eos_token_id"]) == (1, 2)
    # the folder's own tokenizer, encoding as it did
    assert (out / "tokenizer.json").read_text() == (folder / "tokenizer.json").read_text()
    ids = AutoTokenizer.from_pretrained(out, local_files_only=True)(PROBE)["input_ids"]
    assert ids == AutoTokenizer.from_pretrained(folder, local_files_only=True)(PROBE)["input_ids"]
    np.testing.assert_allclose(transformers_logits(out, ids), app_logits(snapshot, ids),
                               atol=1e-5)
    # and the exported folder opens in the app again as the same model
    again = snapshot_from_checkpoint(out)
    assert again.model_config == snapshot.model_config
    for name, value in snapshot.weights.items():
        np.testing.assert_array_equal(again.weights[name], value, err_msg=name)


def test_a_llama_shaped_model_the_app_made_exports_with_its_bpe(tmp_path):
    from transformers import PreTrainedTokenizerFast

    from workbench.core.corpus.bpe_tokenizer import BpeTokenizer

    bpe = BpeTokenizer.train(TEXT, vocab_size=300)
    config = TransformerConfig(vocab_size=bpe.vocab_size, **LLAMA_LIKE)
    torch.manual_seed(2)
    snapshot = Snapshot(config_to_dict(config), {k: v.numpy() for k, v in
                                                 build_model(config).state_dict().items()},
                        bpe.to_dict())
    out = export_hf(snapshot, tmp_path / "mine")
    ids = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))(PROBE)["input_ids"]
    assert ids == bpe.encode(PROBE)
    np.testing.assert_allclose(transformers_logits(out, ids), app_logits(snapshot, ids),
                               atol=1e-5)


def test_a_decoder_neither_family_holds_is_refused_with_both_named(tmp_path):
    from workbench.core.corpus.tokenizers import CharTokenizer

    chars = CharTokenizer(list("abc "))
    config = TransformerConfig(vocab_size=chars.vocab_size,
                               **{**LLAMA_LIKE, "norm": "layernorm", "linear_bias": True})
    snapshot = Snapshot(config_to_dict(config), {}, chars.to_dict())
    with pytest.raises(UserFacingError) as refused:
        export_hf(snapshot, tmp_path / "no")
    message = str(refused.value)
    assert message.index("As Llama:") < message.index("As GPT-2:")  # the closer one first
    for words in ("Norm must be RMSNorm", "Biases must be off", "Positions must be learned, "
                  "not rotary", "Gated FFN must be off", "tokenizer is char"):
        assert words in message, message
    assert not (tmp_path / "no").exists()


def test_the_command_line_writes_a_llama_folder_and_never_into_an_existing_one(tmp_path,
                                                                                 capsys):
    folder = make_llama_folder(tmp_path / "tiny-llama")
    assert export_main([str(folder), "--hf", str(tmp_path / "out")]) == 0
    assert json.loads((tmp_path / "out" / "config.json").read_text())["architectures"] == \
        ["LlamaForCausalLM"]
    (tmp_path / "mine").mkdir()
    assert export_main([str(folder), "--hf", str(tmp_path / "mine")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert list((tmp_path / "mine").iterdir()) == []


def test_a_lora_run_on_a_llama_folder_exports_the_merged_weights(tmp_path, monkeypatch):
    pytest.importorskip("peft")
    from test_lora_finetune import RECIPE
    from training_fixtures import TEXT as CORPUS

    from workbench.app.train_cli import main as train
    from workbench.core.pretrained import open_model
    from workbench.core.training.checkpoints import load_checkpoint

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    folder = make_llama_folder(tmp_path / "tiny-llama")
    (tmp_path / "tiny.txt").write_text(CORPUS, encoding="utf-8")
    recipe = RECIPE.replace('"tiny-gpt2"', '"tiny-llama"').replace("max_steps = 20",
                                                                     "max_steps = 2")
    (tmp_path / "lora.toml").write_text(recipe, encoding="utf-8")
    run = tmp_path / "run"
    assert train([str(tmp_path / "lora.toml"), "--out", str(run)]) == 0
    assert export_main([str(run), "--hf", str(tmp_path / "hf")]) == 0
    merged = load_checkpoint(run / "checkpoints" / "latest.json").model["blocks.0.qkv.weight"]
    _, before = open_model(folder)
    assert not np.array_equal(merged.numpy(), before["blocks.0.qkv.weight"])  # LoRA moved it
    from transformers import AutoModelForCausalLM

    attention = AutoModelForCausalLM.from_pretrained(tmp_path / "hf", local_files_only=True
                                                     ).model.layers[0].self_attn
    exported = torch.cat([attention.q_proj.weight, attention.k_proj.weight,
                          attention.v_proj.weight]).detach()
    assert torch.allclose(exported, merged, atol=1e-6)
