"""The app's transformer written as a Hugging Face GPT-2 folder (issue 34 item 4):
`transformers` opens it with the same logits and the same token ids; an opened GPT-2 folder
round-trips; a model without GPT-2's choices is refused with each setting named."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.core.pretrained_folders import TEXT, make_gpt2_folder, reference_gpt2
from workbench.app.export_cli import main
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.models import TransformerConfig, config_to_dict
from workbench.core.corpus.bpe_tokenizer import BpeTokenizer
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_model
from workbench.core.pretrained.export import export_gpt2
from workbench.core.snapshot import Snapshot

GPT2_LIKE = dict(d_model=32, num_heads=4, num_layers=2, d_ff=64, context_length=48, dropout=0.0,
                 positional="learned", norm_placement="pre", activation="gelu_tanh",
                 head_bias=False)


def app_snapshot(tokenizer, **changes) -> Snapshot:
    config = TransformerConfig(vocab_size=tokenizer.vocab_size, **{**GPT2_LIKE, **changes})
    torch.manual_seed(1)
    model = build_model(config)
    return Snapshot(config_to_dict(config), {k: v.numpy() for k, v in
                                             model.state_dict().items()}, tokenizer.to_dict())


@pytest.fixture(scope="module")
def bpe():
    return BpeTokenizer.train(TEXT, vocab_size=300)


@pytest.mark.parametrize("tied", [True, False])
def test_transformers_reads_the_apps_transformer_with_the_same_logits(tmp_path, bpe, tied):
    from transformers import PreTrainedTokenizerFast

    snapshot = app_snapshot(bpe, tie_weights=tied)
    out = export_gpt2(snapshot, tmp_path / "exported")
    text = "But soft, what light"
    ids = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))(text)["input_ids"]
    assert ids == bpe.encode(text)  # the same ids
    from workbench.core.snapshot.rebuild import model_from_snapshot

    mine = model_from_snapshot(snapshot).eval()
    with torch.no_grad():
        expected = reference_gpt2(out)(torch.tensor([ids])).logits
        np.testing.assert_allclose(mine(torch.tensor([ids]))[0].numpy(), expected.numpy(),
                                   atol=1e-5)


def test_an_opened_gpt2_folder_round_trips(tmp_path):
    folder = make_gpt2_folder(tmp_path / "tiny-gpt2")
    first = snapshot_from_checkpoint(folder)
    assert main([str(folder), "--hf", str(tmp_path / "again")]) == 0
    second = snapshot_from_checkpoint(tmp_path / "again")
    assert second.model_config == first.model_config and second.tokenizer == first.tokenizer
    for name, value in first.weights.items():
        np.testing.assert_array_equal(second.weights[name], value, err_msg=name)


def test_a_model_without_gpt2s_choices_is_refused_with_each_setting_named(tmp_path, bpe):
    snapshot = app_snapshot(CharTokenizer(list("abc ")), norm_placement="post",
                            positional="sinusoidal", head_bias=True)
    with pytest.raises(UserFacingError) as refused:
        export_gpt2(snapshot, tmp_path / "no")
    message = str(refused.value)
    for words in ("pre-LN", "Positions must be learned", "Output bias", "tokenizer is char"):
        assert words in message
    assert not (tmp_path / "no").exists()


def test_an_existing_folder_is_never_written_into(tmp_path, bpe):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(UserFacingError, match="already exists"):
        export_gpt2(app_snapshot(bpe), tmp_path / "mine")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
