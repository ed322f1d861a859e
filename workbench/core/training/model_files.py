"""Weights-only checkpoints: what the app ships as sample models (no optimizer, no RNG).

`write_model_checkpoint` keeps a trained checkpoint's model weights (optionally as float16, half
the size, rounded to about three significant digits) and its metadata (config, tokenizer, task,
step, metrics) in the same format as a run's checkpoints, so everything that opens a checkpoint
opens these; `load_checkpoint` turns float16 back into float32 for the model.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save

from workbench.core.training.checkpoints import FORMAT, atomic_write, load_checkpoint

KEEP = ("model_config", "tokenizer", "task", "step", "metrics", "run_name", "tokens_seen",
        "elapsed_s")


def write_model_checkpoint(source: str | Path, folder: str | Path, name: str,
                           half: bool = True, extra: dict[str, Any] | None = None) -> Path:
    """Copy the model of the checkpoint `source` into `folder/latest.{safetensors,json}`;
    returns the JSON path. `extra` goes into the metadata (how the model was made)."""
    saved = load_checkpoint(source)
    dtype = torch.float16 if half else torch.float32
    tensors = {f"model.{k}": (v.to(dtype) if v.is_floating_point() else v).contiguous()
               for k, v in saved.model.items()}
    data = save(tensors)
    folder = Path(folder)
    atomic_write(folder / "latest.safetensors", data)
    meta = {k: saved.meta[k] for k in KEEP if k in saved.meta}
    meta.update({"run_name": name, "kind": "sample", "format": FORMAT,
                 "optimizer": {"param_groups": [], "plain": {}}, "state_parts": 0,
                 "weights_sha256": hashlib.sha256(data).hexdigest(), **(extra or {})})
    json_path = folder / "latest.json"
    atomic_write(json_path, json.dumps(meta, indent=1).encode("utf-8"))
    return json_path
