"""Every damaged or unsupported Hugging Face folder gets a message that names what is wrong
and what to do, before any weight is allocated (issue 34 item 1)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.core.pretrained_folders import make_gpt2_folder
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.jobs import UserFacingError


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return make_gpt2_folder(tmp_path_factory.mktemp("models") / "gpt2-good")


@pytest.fixture
def folder(tmp_path, original):
    copy = tmp_path / "gpt2-copy"
    shutil.copytree(original, copy)
    return copy


def edit_config(folder, **changes):
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))


def refusal(folder) -> str:
    with pytest.raises(UserFacingError) as caught:
        snapshot_from_checkpoint(folder)
    return str(caught.value)


def test_a_folder_of_another_family_names_the_ones_that_open(folder):
    edit_config(folder, model_type="mistral")
    message = refusal(folder)
    assert "'mistral'" in message and "GPT-2" in message and "BERT" in message
    assert "Llama" in message


@pytest.mark.parametrize("option, words", [
    ({"activation_function": "swish"}, "activation 'swish'"),
    ({"scale_attn_by_inverse_layer_idx": True}, "scale_attn_by_inverse_layer_idx"),
    ({"layer_norm_epsilon": 1e-6}, "ε is 1e-06"),
    ({"n_layer": "two"}, "'n_layer' as 'two'"),
])
def test_an_option_the_transformer_does_not_compute_is_named(folder, option, words):
    edit_config(folder, **option)
    assert words in refusal(folder)


def test_missing_files_say_what_to_copy(folder, original):
    (folder / "tokenizer.json").unlink()
    assert "no tokenizer.json" in refusal(folder)
    shutil.copy(original / "tokenizer.json", folder / "tokenizer.json")
    (folder / "model.safetensors").unlink()
    assert "has no model.safetensors" in refusal(folder)


def test_a_cut_short_or_garbled_weights_file_is_damaged_not_a_crash(folder):
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    message = refusal(folder)  # found from the header, before any tensor is read
    assert "lies past the end of the file (cut short?)" in message
    assert "copy the model folder again" in message
    weights.write_bytes(b"\x00" * 4 + b"garbage" * 10)
    assert "not a safetensors file" in refusal(folder)


def test_weights_of_other_sizes_are_named_by_tensor(folder):
    edit_config(folder, n_embd=64)
    message = refusal(folder)
    assert "shape" in message and "embedding.weight" in message


def test_a_config_too_large_for_memory_is_refused_from_its_sizes(folder):
    edit_config(folder, n_layer=48, n_embd=4096, n_head=32, vocab_size=2_000_000)
    assert "needs about" in refusal(folder)  # from the config: no weights read


def test_a_tokenizer_larger_than_the_model_belongs_to_another(folder):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.add_tokens([f"extra{i}" for i in range(10)])  # ids past the embedding's rows
    tokenizer.save(str(folder / "tokenizer.json"))
    assert "its tokenizer has 330 tokens but the model only 320" in refusal(folder)


def test_config_json_that_is_not_json(folder):
    (folder / "config.json").write_text("{not json")
    assert "config.json cannot be read" in refusal(folder)


def test_half_precision_weights_are_widened_to_the_same_numbers(folder, original):
    """Many folders keep float16 or bfloat16 weights: read from their byte ranges, widened."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    tensors = load_file(str(original / "model.safetensors"))
    for kind in (np.float16, "bfloat16"):
        if kind == "bfloat16":  # numpy has no bfloat16: write it through torch
            import torch
            from safetensors.torch import save_file as save_torch

            save_torch({k: torch.from_numpy(v).to(torch.bfloat16) for k, v in tensors.items()},
                       str(folder / "model.safetensors"))
            tolerance = 1e-2
        else:
            save_file({k: v.astype(kind) for k, v in tensors.items()},
                      str(folder / "model.safetensors"))
            tolerance = 1e-3
        widened = snapshot_from_checkpoint(folder).weights
        assert widened["positions.weight"].dtype == np.float32
        np.testing.assert_allclose(widened["positions.weight"], tensors["transformer.wpe.weight"],
                                   atol=tolerance)
