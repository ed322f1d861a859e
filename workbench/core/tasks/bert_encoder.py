"""A BERT folder as the encoder of a classifier or a tagger (fine-tuning, SLP3 ch. 11): the
encoder part of the masked-LM mapping (`bert.py`) with its weights, the folder's tokenizer, and
BERT's pooler where the folder has one. The masked-LM head is dropped; the task's head is new.

BertForMaskedLM saves no pooler (its `add_pooling_layer` is off); BertForPreTraining (what
"bert-base-uncased" holds) and BertModel do. The pooler is read only for a classifier that asks
for it.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

from workbench.core.tasks.text_data import Pretrained

_POOLER = {"pooler.dense.weight": "dense.weight", "pooler.dense.bias": "dense.bias"}


def encoder_start(folder: Path, task: str, dropout: float, pooler: bool = False) -> Pretrained:
    """The folder's encoder config (with the run's dropout), its weights under the encoder's
    own names, its tokenizer's table, and the pooler's weights in `head` (when asked for and
    present); `UserFacingError` for a folder that is no BERT."""
    from workbench.core.pretrained import open_model, open_tokenizer
    from workbench.core.tasks.pretrained_start import folder_config

    folder_config(folder, task)  # a GPT-2 folder refused, saying why
    config, weights = open_model(folder)
    encoder = {**config.encoder, "dropout": float(dropout)}
    own = {k.removeprefix("encoder."): torch.from_numpy(v) for k, v in weights.items()
           if k.startswith("encoder.")}
    tokenizer = open_tokenizer(folder)
    vocabulary = {**tokenizer.to_dict(), "mask_id": tokenizer.mask_id}
    head = pooler_weights(folder) if pooler else {}
    notes = []
    if pooler and not head:
        notes.append(f"{folder.name} has no pooler (a BertForMaskedLM saves none): BERT's "
                     "pooler starts fresh.")
    return Pretrained(str(folder), encoder, own, vocabulary, notes=notes, head=head)


def pooler_weights(folder: Path) -> dict[str, torch.Tensor]:
    """BERT's pooler (`bert.pooler.dense`) under the app's `BertPooler` names, {} when the
    folder's weights have none."""
    from workbench.core.pretrained.folder import _read_tensors, _weights_file

    def wanted(name: str) -> bool:
        return name.removeprefix("bert.") in _POOLER

    tensors = _read_tensors(_weights_file(folder), SimpleNamespace(wanted=wanted))
    found = {_POOLER[k.removeprefix("bert.")]: torch.from_numpy(np.asarray(v))
             for k, v in tensors.items() if wanted(k)}
    return found if len(found) == len(_POOLER) else {}
