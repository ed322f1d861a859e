"""Red-team family 'fine-tuning trusts its source run' (issue 30, defect 12): the tokenizer
of the run a classifier or tagger starts from is checked like a checkpoint's own, and named
in one message. (Its encoder settings are checked against its tensors on the meta device
before anything is allocated: tests/core/test_encoder_tasks.py and the resume family.)"""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

from workbench.core.corpus.tokenizers import WordTokenizer
from workbench.core.jobs import UserFacingError
from workbench.core.tasks.encoder_start import load_pretrained
from workbench.core.training.checkpoints import save_checkpoint

TOKENIZER = WordTokenizer.train("the cat sat on the mat", r"\w+")


class _Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Embedding(TOKENIZER.vocab_size + 1, 4)


@pytest.fixture
def source_run(tmp_path):
    model = _Encoder()
    meta = {"step": 3, "model_config": {"arch": "masked_lm_model", "encoder": {
        "arch": "transformer_encoder", "vocab_size": TOKENIZER.vocab_size + 1}},
        "tokenizer": {**TOKENIZER.to_dict(), "mask_id": TOKENIZER.vocab_size}}
    save_checkpoint(tmp_path / "run" / "checkpoints", "latest", model,
                    torch.optim.SGD(model.parameters(), lr=0.1), meta)
    return tmp_path / "run"


def _edit(run, change):
    path = run / "checkpoints" / "latest.json"
    meta = json.loads(path.read_text())
    change(meta["tokenizer"])
    path.write_text(json.dumps(meta))


def test_an_intact_source_run_loads(source_run):
    assert load_pretrained(str(source_run)).step == 3


@pytest.mark.parametrize("change, message", [
    (lambda t: t.pop("symbols"), "the word tokenizer has no 'symbols' list"),
    (lambda t: t.update(symbols=5), "'symbols' is 5, not a list"),
    (lambda t: t.pop("pattern"), "the word tokenizer has no 'pattern'"),
    (lambda t: t.update(kind="bpe", tokenizer_json="{nope"), "BPE JSON cannot be read"),
])
def test_a_damaged_source_tokenizer_is_named(source_run, change, message):
    _edit(source_run, change)
    with pytest.raises(UserFacingError, match=f"cannot be used: .*{message}.*cannot be fine"):
        load_pretrained(str(source_run))


def test_encoder_settings_this_version_does_not_know_are_named(source_run):
    """A key the encoder's config does not have was dropped unsaid: the encoder built then is
    not the one the weights trained (an edited file, or a run of another version)."""
    path = source_run / "checkpoints" / "latest.json"
    meta = json.loads(path.read_text())
    meta["model_config"]["encoder"]["num_layer"] = 8
    path.write_text(json.dumps(meta))
    with pytest.raises(UserFacingError, match=r"encoder settings saved with .*unknown key "
                                              r"'num_layer' \(did you mean 'num_layers'\?\)"):
        load_pretrained(str(source_run))
