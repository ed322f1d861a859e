"""Checkpoints: tensors in safetensors, everything else in a JSON manifest beside them.

The weights file holds the model weights (`model.*`), the optimizer's tensors
(`optim.<param>.<name>`), the carried hidden state (`state.<i>`) and the torch RNG state, so a
resumed run continues exactly where the saved one stood. `checkpoints/<kind>.json` holds the
model config, tokenizer, step, metrics, optimizer hyper-parameters, the guard's learning-rate
scale, the name of the weights file and its SHA-256.

How the files are written so that a crash never costs a good checkpoint is in
`checkpoint_files.py` (weights under a fresh name, the manifest last). Loading runs no code
from the files (no pickle): safetensors and JSON only, and the weights are copied into memory
rather than mapped, so a checkpoint overwritten on disk cannot pull tensors from under a
loaded model. `load_resumable` falls back to `best`, then to older checkpoints, and says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load, save

from workbench.core.files import bounded
from workbench.core.jobs import UserFacingError
from workbench.core.training import checkpoint_files
from workbench.core.training.checkpoint_files import atomic_write

__all__ = ["Checkpoint", "atomic_write", "load_checkpoint", "load_resumable",
           "load_weights_into", "save_checkpoint"]

FORMAT = "sequence-workbench-checkpoint/1"
_OTHER_FLOATS = (torch.float16, torch.bfloat16, torch.float64)


@dataclass
class Checkpoint:
    meta: dict[str, Any]
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]  # an optimizer state_dict
    state: list[torch.Tensor]  # flattened hidden state (empty for stateless models)
    rng: torch.Tensor | None
    rank_rngs: list[torch.Tensor] = field(default_factory=list)  # ranks 1.. of a torchrun run
    # a LoRA run's base layers and factors (lora.py): `model` holds the merged weights every
    # reader opens, these let a resumed run go on from the same W, A and B
    lora: dict[str, torch.Tensor] = field(default_factory=dict)

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
    from workbench.core.training import lora

    # a LoRA model: its merged weights under the plain names, its own parts beside them
    tensors = {f"model.{k}": v.detach().cpu().clone().contiguous()
               for k, v in lora.merged_state(model).items()}
    tensors.update({f"lora.{k}": v.detach().cpu().clone().contiguous()
                    for k, v in lora.lora_parts(model).items()})
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
    full_meta = {**meta, "format": FORMAT, "optimizer": optim_plain,
                 "weights_sha256": hashlib.sha256(data).hexdigest(),
                 "state_parts": len(flatten_state(state))}
    return checkpoint_files.commit(Path(folder), kind, data, full_meta)


def load_checkpoint(path: str | Path, check=None) -> Checkpoint:
    """Read a checkpoint given its `.json` manifest or weights file (or the run's checkpoint
    folder, meaning 'latest'); raises `UserFacingError` saying what is wrong and what to do.

    Files are read through files/bounded.py: regular files only, no larger than memory allows,
    and `check` (JobControl.check, or the trainer's stop check) between pieces."""
    json_path = _manifest_of(Path(path))
    if not json_path.exists():
        raise UserFacingError(f"Checkpoint file {json_path} is missing. Choose a run whose "
                              "checkpoints folder has its .json and .safetensors files.")
    try:
        meta = bounded.read_json(json_path, "manifest", check)
    except OSError as exc:
        raise UserFacingError(f"Checkpoint metadata {json_path} cannot be read "
                              f"({exc.strerror or exc}). Use another checkpoint.") from None
    except ValueError as exc:
        raise UserFacingError(f"Checkpoint metadata {json_path} is damaged ({exc}). The file "
                              "was probably cut short; use another checkpoint.") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise UserFacingError(f"{json_path} is not a Sequence Workbench checkpoint.")
    try:
        weights_path = checkpoint_files.weights_path(json_path, meta)
    except ValueError as exc:
        raise UserFacingError(f"Checkpoint metadata {json_path} is damaged: {exc}. Use "
                              "another checkpoint.") from None
    try:
        data = bounded.read_bytes(weights_path, "weights", check)
    except FileNotFoundError:
        raise UserFacingError(f"Checkpoint file {weights_path} is missing. Choose a run whose "
                              "checkpoints folder has its .json and .safetensors files."
                              ) from None
    except OSError as exc:
        raise UserFacingError(f"Checkpoint weights {weights_path} cannot be read "
                              f"({exc.strerror or exc}). Use another checkpoint.") from None
    if hashlib.sha256(data).hexdigest() != meta.get("weights_sha256"):
        raise UserFacingError(
            f"Checkpoint weights {weights_path} do not match their metadata {json_path.name} "
            "(the file is truncated, damaged or from another save). Use another checkpoint.")
    try:
        tensors = load(data)  # copies into memory: never mapped to the file
    except (SafetensorError, ValueError) as exc:
        raise UserFacingError(f"Checkpoint weights {weights_path} cannot be read ({exc}). "
                              "Use another checkpoint.") from None
    odd = next((k for k, v in tensors.items() if k.startswith("model.")
                and not v.dtype.is_floating_point), None)
    if odd is not None:
        raise UserFacingError(f"Checkpoint weights {weights_path} hold '{odd}' as "
                              f"{str(tensors[odd].dtype).removeprefix('torch.')}, not "
                              "floating-point numbers: the file was damaged or edited. Use "
                              "another checkpoint.")
    try:
        # a shipped sample model keeps its weights as float16 (model_files.py), a file
        # written elsewhere may hold bfloat16 or float64: the app computes in float32
        model = {k[len("model."):]: v.float() if v.dtype in _OTHER_FLOATS else v
                 for k, v in tensors.items() if k.startswith("model.")}
        parts = [tensors[f"state.{i}"] for i in range(int(meta.get("state_parts", 0)))]
        optimizer = _unflatten_optimizer(tensors, meta["optimizer"])
        ranks = [tensors[f"rng.rank{r}"] for r in range(1, int(meta.get("state_ranks", 1)))
                 if f"rng.rank{r}" in tensors]
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise UserFacingError(f"Checkpoint {json_path} does not match its weights (missing "
                              f"or malformed {exc}). Use another checkpoint.") from None
    lora_parts = {k[len("lora."):]: v for k, v in tensors.items() if k.startswith("lora.")}
    return Checkpoint(meta, model, optimizer, parts, tensors.get("rng.torch"), ranks,
                      lora_parts)


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


def _manifest_of(path: Path) -> Path:
    """The manifest for a folder ('latest'), a manifest, or a weights file (which manifest
    names it: weights files are named by kind, step and hash)."""
    if path.is_dir():
        return path / "latest.json"
    if path.suffix != ".safetensors" or path.with_suffix(".json").is_file():
        return path.with_suffix(".json")
    for manifest in [path.parent / "latest.json", path.parent / "best.json",
                     *checkpoint_files.older_manifests(path.parent)]:
        try:
            meta = bounded.read_json(manifest, "manifest")
            if checkpoint_files.weights_path(manifest, meta).name == path.name:
                return manifest
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    return path.with_suffix(".json")


def load_resumable(folder: str | Path) -> tuple[Checkpoint, str]:
    """The checkpoint a run resumes from: 'latest', else 'best', else the newest older one
    that loads. Returns it with a note for the user ('' when 'latest' loaded); raises
    `UserFacingError` listing why each one failed when none loads."""
    folder = Path(folder)  # reads only: a save's temporaries are pruned by the next save
    candidates = [folder / "latest.json", folder / "best.json",
                  *checkpoint_files.older_manifests(folder)]
    failures = []
    for manifest in candidates:
        if not manifest.exists() and manifest.name == "best.json":
            continue
        try:
            checkpoint = load_checkpoint(manifest)
        except UserFacingError as exc:
            failures.append(str(exc))
            continue
        if manifest.name == "latest.json":
            return checkpoint, ""
        which = ("best" if manifest.name == "best.json"
                 else f"older checkpoint {manifest.name}")
        return checkpoint, (f"The latest checkpoint could not be used: {failures[0]} "
                            f"Resumed from the {which} at step {checkpoint.step} instead; "
                            "the steps after it are trained again.")
    raise UserFacingError("No checkpoint of this run can be loaded, so it cannot be resumed. "
                          + " ".join(failures[:3]) + " Start the recipe again as a new run.")


def load_weights_into(model, checkpoint: Checkpoint, source: str = "checkpoint") -> None:
    """Copy weights into `model`, naming the first missing, extra or mis-shaped tensor (a
    LoRA model takes its own base layers and factors; any other, the merged weights)."""
    from workbench.core.training import lora

    expected = model.state_dict()
    if lora.is_lora(model):
        if not checkpoint.lora:
            raise UserFacingError(f"The {source} was saved without LoRA ('LoRA rank' 0); "
                                  "resume it with 'LoRA rank' 0.")
        checkpoint = replace(checkpoint, model=lora.unmerged_state(
            checkpoint.model, checkpoint.lora))
    missing = sorted(set(expected) - set(checkpoint.model))
    extra = sorted(set(checkpoint.model) - set(expected))
    if missing or extra:
        raise UserFacingError(
            f"The {source} does not fit this model: missing {missing[:3]}, unexpected "
            f"{extra[:3]}. It was saved for another architecture or configuration.")
    for name in expected:  # in the model's own order, whatever the file's
        tensor = checkpoint.model[name]
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise UserFacingError(
                f"The {source} does not fit this model: '{name}' has shape "
                f"{tuple(tensor.shape)}, the model expects {tuple(expected[name].shape)}.")
    model.load_state_dict(checkpoint.model)
