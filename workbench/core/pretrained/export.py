"""Write the app's own transformer as a Hugging Face GPT-2 folder that `transformers` opens
with the same logits: config.json, model.safetensors and the tokenizer's tokenizer.json.

Only a decoder trained with GPT-2's choices can be written (pre-LN, learned positions, no
output bias, a causal mask); the refusal names each setting to change. The tokenizer must be
a BPE one (the app's byte-level BPE, or the model folder's own after fine-tuning): those are
`tokenizer.json` already. A folder that exists is never written into.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from workbench.core.config.models import config_from_dict
from workbench.core.jobs import UserFacingError
from workbench.core.pretrained import gpt2
from workbench.core.snapshot import Snapshot


def export_gpt2(snapshot: Snapshot, out: Path) -> Path:
    """Write `snapshot` as a GPT-2 folder at `out` (which must not exist yet)."""
    config = config_from_dict(snapshot.model_config)
    problems = gpt2.export_problems(config)
    table = snapshot.tokenizer
    if table.get("kind") not in ("bpe", "pretrained"):
        problems.append(f"its tokenizer is {table.get('kind')}; GPT-2 folders hold a BPE "
                        "tokenizer (train with Tokenizer: bpe, or fine-tune a GPT-2 folder)")
    if problems:
        raise UserFacingError("This model cannot be written as a GPT-2 folder: "
                              + "; ".join(problems) + ".")
    out = Path(out).expanduser().absolute()
    if out.exists():
        raise UserFacingError(f"{out} already exists; the export writes a new folder. Give "
                              "the name of a folder that does not exist yet.")
    if not out.parent.is_dir():
        raise UserFacingError(f"The folder {out.parent} does not exist. Create it or give "
                              "another place for the export.")
    from safetensors.numpy import save_file

    bos, eos = _special_ids(table)
    weights = gpt2.gpt2_weights(snapshot.weights, config.tie_weights)
    out.mkdir()
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()},
              str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(gpt2.gpt2_config(config, bos, eos), indent=2),
                                     encoding="utf-8")
    (out / "tokenizer.json").write_text(table["tokenizer_json"], encoding="utf-8")
    return out


def _special_ids(table: dict) -> tuple[int, int]:
    if table.get("kind") == "pretrained":
        return int(table["bos_id"]), int(table["eos_id"])
    from workbench.core.corpus.tokenizer_base import BOS, EOS

    return BOS, EOS
