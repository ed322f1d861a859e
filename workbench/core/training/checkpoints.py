"""Checkpoints: tensors in safetensors, everything else in a JSON file beside them.

`checkpoints/<kind>.safetensors` holds the model weights (`model.*`), the optimizer's tensors
(`optim.<param>.<name>`), the carried hidden state (`state.<i>`) and the torch RNG state, so a
resumed run continues exactly where the saved one stood. `checkpoints/<kind>.json` holds the
model config, tokenizer, step, metrics, optimizer hyper-parameters, the guard's learning-rate
scale and the SHA-256 of the tensor file.

Writes are atomic (temporary file, fsync, rename) and the JSON is written last, so a crash
mid-write leaves the previous checkpoint whole; the hash catches a tensor file that does not
belong to its JSON. Loading runs no code from the files (no pickle): safetensors and JSON only.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save

from workbench.core.jobs import UserFacingError

FORMAT = "sequence-workbench-checkpoint/1"


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, fsync it, then rename over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@dataclass
class Checkpoint:
    meta: dict[str, Any]
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]  # an optimizer state_dict
    state: list[torch.Tensor]  # flattened hidden state (empty for stateless models)
    rng: torch.Tensor | None
    rank_rngs: list[torch.Tensor] = field(default_factory=list)  # ranks 1.. of a torchrun run

    @property
    def step(self) -> int:
        return int(self.meta["step"])


def _flatten_optimizer(state_dict: dict) -> tuple[dict[str, torch.Tensor], dict]:
    tensors, plain = {}, {}
    for index, values in state_dict["state"].items():
        plain[str(index)] = {}
        for name, value in values.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optim.{index}.{name}"] = value.detach().cpu().contiguous()
            else:
                plain[str(index)][name] = value
    return tensors, {"param_groups": state_dict["param_groups"], "plain": plain}


def _unflatten_optimizer(tensors: dict[str, torch.Tensor], saved: dict) -> dict:
    state: dict[int, dict[str, Any]] = {int(i): dict(v) for i, v in saved["plain"].items()}
    for key, value in tensors.items():
        if key.startswith("optim."):
            _, index, name = key.split(".", 2)
            state.setdefault(int(index), {})[name] = value
    return {"state": state, "param_groups": saved["param_groups"]}


def flatten_state(state: Any) -> list[torch.Tensor]:
    """A hidden state (None, a tensor, or nested tuples of tensors) as a flat list."""
    if state is None:
        return []
    if isinstance(state, torch.Tensor):
        return [state]
    return [t for part in state for t in flatten_state(part)]


def save_checkpoint(folder: Path, kind: str, model, optimizer, meta: dict[str, Any],
                    state: Any = None, rngs: list[torch.Tensor] | None = None) -> Path:
    """Write `<kind>.safetensors` and `<kind>.json` into `folder`; returns the JSON path.

    `state` is the carried hidden state; a torchrun run passes every rank's (a list, in rank
    order) and `rngs`, every rank's torch RNG state, so each rank resumes exactly."""
    # clone: tied weights (embedding = output projection) share storage, which safetensors
    # refuses; saved twice, they load back into the one shared parameter
    tensors = {f"model.{k}": v.detach().cpu().clone().contiguous()
               for k, v in model.state_dict().items()}
    optim_tensors, optim_plain = _flatten_optimizer(optimizer.state_dict())
    tensors.update(optim_tensors)
    for i, part in enumerate(flatten_state(state)):
        tensors[f"state.{i}"] = part.detach().cpu().contiguous()
    rngs = rngs or [torch.get_rng_state()]
    tensors["rng.torch"] = rngs[0]
    for rank, rng in enumerate(rngs[1:], 1):
        tensors[f"rng.rank{rank}"] = rng
    meta = {**meta, "state_ranks": len(rngs)}
    data = save(tensors)
    atomic_write(folder / f"{kind}.safetensors", data)
    full_meta = {**meta, "format": FORMAT, "optimizer": optim_plain,
                 "weights_sha256": hashlib.sha256(data).hexdigest(),
                 "state_parts": len(flatten_state(state))}
    json_path = folder / f"{kind}.json"
    atomic_write(json_path, json.dumps(full_meta, indent=1).encode("utf-8"))
    return json_path


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a checkpoint given its `.json` or `.safetensors` path (or the run's checkpoint
    folder, meaning 'latest'); raises `UserFacingError` saying what is wrong and what to do."""
    path = Path(path)
    if path.is_dir():
        path = path / "latest.json"
    json_path, weights_path = path.with_suffix(".json"), path.with_suffix(".safetensors")
    for needed in (json_path, weights_path):
        if not needed.is_file():
            raise UserFacingError(f"Checkpoint file {needed} is missing. Choose a run whose "
                                  "checkpoints folder has both the .json and .safetensors file.")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserFacingError(f"Checkpoint metadata {json_path} is damaged ({exc}). The file "
                              "was probably cut short; use another checkpoint.") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise UserFacingError(f"{json_path} is not a Sequence Workbench checkpoint.")
    data = weights_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != meta.get("weights_sha256"):
        raise UserFacingError(
            f"Checkpoint weights {weights_path} do not match their metadata {json_path.name} "
            "(the file is truncated, damaged or from another save). Use another checkpoint.")
    try:
        tensors = load_file(str(weights_path))
    except (SafetensorError, OSError, ValueError) as exc:
        raise UserFacingError(f"Checkpoint weights {weights_path} cannot be read ({exc}). "
                              "Use another checkpoint.") from None
    # a shipped sample model keeps its weights as float16 (model_files.py): train in float32
    model = {k[len("model."):]: v.float() if v.dtype == torch.float16 else v
             for k, v in tensors.items() if k.startswith("model.")}
    parts = [tensors[f"state.{i}"] for i in range(int(meta.get("state_parts", 0)))]
    optimizer = _unflatten_optimizer(tensors, meta["optimizer"])
    ranks = [tensors[f"rng.rank{r}"] for r in range(1, int(meta.get("state_ranks", 1)))
             if f"rng.rank{r}" in tensors]
    return Checkpoint(meta, model, optimizer, parts, tensors.get("rng.torch"), ranks)


def rank_part(checkpoint: Checkpoint, rank: int, world_size: int
              ) -> tuple[list[torch.Tensor], torch.Tensor | None]:
    """One rank's carried state and RNG state. A checkpoint saved by another number of ranks
    has no state for this split of the batch: ([], the RNG of this rank if it had one)."""
    saved_ranks = int(checkpoint.meta.get("state_ranks", 1))
    rngs = [checkpoint.rng, *checkpoint.rank_rngs]
    rng = rngs[rank] if rank < len(rngs) else None
    if saved_ranks != world_size:
        return [], rng
    size = len(checkpoint.state) // max(saved_ranks, 1)
    return checkpoint.state[rank * size:(rank + 1) * size], rng


def load_weights_into(model, checkpoint: Checkpoint, source: str = "checkpoint") -> None:
    """Copy weights into `model`, naming the first missing, extra or mis-shaped tensor."""
    expected = model.state_dict()
    missing = sorted(set(expected) - set(checkpoint.model))
    extra = sorted(set(checkpoint.model) - set(expected))
    if missing or extra:
        raise UserFacingError(
            f"The {source} does not fit this model: missing {missing[:3]}, unexpected "
            f"{extra[:3]}. It was saved for another architecture or configuration.")
    for name, tensor in checkpoint.model.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise UserFacingError(
                f"The {source} does not fit this model: '{name}' has shape "
                f"{tuple(tensor.shape)}, the model expects {tuple(expected[name].shape)}.")
    model.load_state_dict(checkpoint.model)
