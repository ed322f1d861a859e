"""Write the app's own model as a Hugging Face folder that `transformers` opens with the same
logits: config.json, model.safetensors and the tokenizer's tokenizer.json. `export_hf` picks the
family from the model:

- a transformer decoder with GPT-2's choices (pre-LN, learned positions, LayerNorm, biases, no
  output bias) as `GPT2LMHeadModel` (gpt2.py's inverse, below);
- one with Llama's (RMSNorm, rotary positions, SwiGLU, grouped-query attention, no biases) as
  `LlamaForCausalLM` (export_llama.py);
- a BERT-shaped encoder's masked LM, classifier or tagger as `BertForMaskedLM`,
  `BertForSequenceClassification` or `BertForTokenClassification` (export_bert.py).

A fine-tuned folder's model (a LoRA run's too: its snapshot holds the merged weights) goes back
as the family it came from. What a family's class cannot hold is refused with each setting
named. The tokenizer must be a tokenizer.json (the app's byte-level BPE, or the model folder's
own after fine-tuning). A folder that exists is never written into.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.config.models import config_from_dict
from workbench.core.jobs import UserFacingError
from workbench.core.pretrained import export_bert, export_llama, gpt2
from workbench.core.snapshot import Snapshot

# a decoder goes out as the first family whose class holds all its options
_DECODERS = (("GPT-2", gpt2.export_problems), ("Llama", export_llama.export_problems))


def export_hf(snapshot: Snapshot, out: Path) -> Path:
    """Write `snapshot` as the Hugging Face folder of its family at `out` (which must not
    exist yet); `UserFacingError` naming what no family's class can hold."""
    config = config_from_dict(snapshot.model_config)
    if config.arch == "transformer":
        found = [(family, check(config)) for family, check in _DECODERS]
        fits = [family for family, problems in found if not problems]
        if fits:
            return export_gpt2(snapshot, out) if fits[0] == "GPT-2" else \
                export_llama_folder(snapshot, out)
        closest = sorted(found, key=lambda item: len(item[1]))  # the fewer changes first
        raise UserFacingError(
            "This transformer cannot be written as a Hugging Face folder. "
            + " ".join(f"As {family}: {'; '.join(problems)}." for family, problems in closest)
            + "".join(f" Also {p}." for p in _tokenizer_problems(snapshot.tokenizer)))
    if config.arch in export_bert.CLASSES:
        return export_bert_folder(snapshot, out)
    raise UserFacingError(f"This model cannot be written as a Hugging Face folder: it is "
                          f"{config.title}. The export writes a transformer decoder (as GPT-2 "
                          "or Llama) and a transformer encoder's masked LM, classifier or "
                          "tagger (as BERT).")


def export_gpt2(snapshot: Snapshot, out: Path) -> Path:
    """Write `snapshot` as a GPT-2 folder at `out` (which must not exist yet)."""
    config = config_from_dict(snapshot.model_config)

    def files() -> tuple[dict, dict]:
        bos, eos = _special_ids(snapshot.tokenizer)
        return (gpt2.gpt2_config(config, bos, eos),
                gpt2.gpt2_weights(snapshot.weights, config.tie_weights))

    return _write(snapshot, out, "GPT-2", gpt2.export_problems(config), files)


def export_llama_folder(snapshot: Snapshot, out: Path) -> Path:
    """Write `snapshot` as a Llama folder at `out` (which must not exist yet)."""
    config = config_from_dict(snapshot.model_config)

    def files() -> tuple[dict, dict]:
        bos, eos = _special_ids(snapshot.tokenizer)
        return (export_llama.llama_config(config, bos, eos),
                export_llama.llama_weights(snapshot.weights, config))

    return _write(snapshot, out, "Llama", export_llama.export_problems(config), files)


def export_bert_folder(snapshot: Snapshot, out: Path) -> Path:
    """Write `snapshot` (a masked LM, classifier or tagger) as a BERT folder at `out`."""
    config = config_from_dict(snapshot.model_config)

    def files() -> tuple[dict, dict]:
        return (export_bert.bert_config(config, snapshot.tokenizer),
                export_bert.bert_weights(snapshot.weights, config))

    return _write(snapshot, out, export_bert.class_name(config),
                  export_bert.export_problems(config), files)


def _write(snapshot: Snapshot, out: Path, family: str, problems: list[str],
           files: Callable[[], tuple[dict[str, Any], dict[str, np.ndarray]]]) -> Path:
    """Check, then write the three files; `files` maps the weights only once all is known
    to fit, and nothing is created before."""
    problems = problems + _tokenizer_problems(snapshot.tokenizer)
    if problems:
        raise UserFacingError(f"This model cannot be written as a {family} folder: "
                              + "; ".join(problems) + ".")
    out = Path(out).expanduser().absolute()
    if out.exists():
        raise UserFacingError(f"{out} already exists; the export writes a new folder. Give "
                              "the name of a folder that does not exist yet.")
    if not out.parent.is_dir():
        raise UserFacingError(f"The folder {out.parent} does not exist. Create it or give "
                              "another place for the export.")
    from safetensors.numpy import save_file

    config_json, weights = files()
    out.mkdir()
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()},
              str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config_json, indent=2), encoding="utf-8")
    (out / "tokenizer.json").write_text(snapshot.tokenizer["tokenizer_json"], encoding="utf-8")
    return out


def _tokenizer_problems(table: dict) -> list[str]:
    if table.get("kind") in ("bpe", "pretrained"):
        return []
    return [f"its tokenizer is {table.get('kind')}; a Hugging Face folder holds a BPE or "
            "WordPiece tokenizer.json (train with Tokenizer: bpe, or fine-tune a model folder)"]


def _special_ids(table: dict) -> tuple[int | None, int | None]:
    if table.get("kind") == "pretrained":
        return table.get("bos_id"), table.get("eos_id")
    from workbench.core.corpus.tokenizer_base import BOS, EOS

    return BOS, EOS
