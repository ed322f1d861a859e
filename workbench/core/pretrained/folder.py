"""Reading a Hugging Face model folder, every file bounded and checked before any weight is
allocated: config.json first (which family, which sizes), then the weights file's header (the
names and shapes it holds, compared with what the config predicts, and the memory they need),
then the weights themselves and the fast tokenizer's tokenizer.json.

Only safetensors and, through `torch.load(weights_only=True)`, pytorch_model.bin are read: a
pickle that could run code never is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workbench.core.config.models import config_to_dict, settings_problems
from workbench.core.corpus.pretrained_tokenizer import PretrainedTokenizer
from workbench.core.files.bounded import check_regular, read_json, read_text
from workbench.core.jobs import UserFacingError
from workbench.core.pretrained import bert, gpt2, llama
from workbench.core.pretrained.safetensors_reader import DamagedFileError, read_header, read_tensors
from workbench.core.snapshot import Snapshot

# model_type -> the module mapping it: model_config, wanted, app_shapes, app_weights and
# snapshot_parts (GPT-2 and Llama open as language models, BERT as a masked LM)
FAMILIES = {"gpt2": gpt2, "bert": bert, "llama": llama}


FOLDER_FILES = ("config.json", "model.safetensors", "pytorch_model.bin", "tokenizer.json")


def is_model_folder(path: Path) -> bool:
    """A folder with a config.json and no run of the app's own (those have checkpoints/)."""
    return (path.is_dir() and (path / "config.json").is_file()
            and not (path / "checkpoints").is_dir())


def model_folder_of(path: Path) -> Path | None:
    """The model folder `path` is, or one of whose files it is (a file dialog picks a file:
    its model.safetensors or config.json), else None."""
    if is_model_folder(path):
        return path
    if path.name in FOLDER_FILES and is_model_folder(path.parent):
        return path.parent
    return None


def snapshot_from_folder(path: Path, check: Callable[[], object] | None = None) -> Snapshot:
    """The folder's model as a snapshot of the app's own family, or `UserFacingError` saying
    what is missing, damaged or not supported. A BERT folder that holds the next-sentence head
    (BertForPreTraining) opens with it and its segment table, so a pair can be probed."""
    config = _config(path)
    pairs = config["model_type"] == "bert" and bert.has_pair_head(config, _saved_names(path))
    model_config, weights = open_model(path, check, next_sentence=pairs)
    tokenizer, task = FAMILIES[_config(path)["model_type"]].snapshot_parts(
        open_tokenizer(path), model_config)
    return Snapshot(model_config=config_to_dict(model_config), weights=weights,
                    tokenizer=tokenizer, task=task, run_name=path.name,
                    run_dir=str(path.resolve()))


def model_config_of(path: Path, next_sentence: bool = False) -> Any:
    """The app's model config for the folder, from its config.json alone; `next_sentence`: a
    BERT read for next-sentence prediction (its segment table and that head)."""
    config = _config(path)
    if next_sentence and config["model_type"] != "bert":
        raise UserFacingError(f"{path.name} is no BERT model: only BERT's folders have the "
                              "segment embeddings next-sentence prediction reads.")
    family = FAMILIES[config["model_type"]]
    model_config = family.model_config(config, next_sentence=True) if next_sentence \
        else family.model_config(config)
    problems = settings_problems(model_config)
    if problems:
        raise UserFacingError(f"{path.name}: its config.json gives a model the workbench cannot "
                              "build: " + " ".join(problems))
    return model_config


def open_model(path: Path, check: Callable[[], object] | None = None,
               next_sentence: bool = False) -> tuple[Any, dict[str, np.ndarray]]:
    """The app's model config and the weights under the app's names (float32 numpy), checked
    against each other and against free memory before the weights are read. With
    `next_sentence`, a BERT folder without that head gives none of its weights (it starts
    fresh)."""
    model_config = model_config_of(path, next_sentence)
    family = FAMILIES[_config(path)["model_type"]]
    from workbench.core.models import build_model
    from workbench.core.training import model_budget

    shapes = model_budget.shapes_on_meta(lambda: build_model(model_config))
    weights_file = _weights_file(path)
    where = f"The model folder {path.name}"
    # the config's size, then the file's tensors, before a byte of weights is read
    model_budget.check_memory(shapes, model_budget.INFERENCE_BYTES, f"Opening {path.name}")
    if weights_file.suffix == ".safetensors":
        saved = _saved_shapes(weights_file, family, model_config)
        model_budget.check_fits(_without_fresh(shapes, saved), saved, where)
    weights = family.app_weights(_read_tensors(weights_file, family, check), model_config)
    model_budget.check_fits(_without_fresh(shapes, weights), weights, where)
    return model_config, weights


def _without_fresh(shapes: dict[str, Any], saved: dict[str, Any]) -> dict[str, Any]:
    """The model's tensors less a next-sentence head the folder does not hold (it starts
    fresh); a head saved in part is still named by the check."""
    if any(k.startswith(bert.PAIR_HEAD) for k in saved):
        return shapes
    return {k: v for k, v in shapes.items() if not k.startswith(bert.PAIR_HEAD)}


def _saved_names(path: Path) -> set[str] | None:
    """The tensor names of a folder's safetensors file (its header alone), None for a
    pytorch_model.bin (it cannot be listed without reading it)."""
    file = _weights_file(path)
    if file.suffix != ".safetensors":
        return None
    try:
        return set(read_header(file)[0])
    except (OSError, DamagedFileError):
        return None  # open_model names the damage


def open_tokenizer(path: Path) -> PretrainedTokenizer:
    """The folder's own tokenizer (tokenizer.json), with its start and end ids."""
    return _tokenizer(path, _config(path), model_config_of(path).vocab_size)


def _config(path: Path) -> dict[str, Any]:
    try:
        config = read_json(path / "config.json", "settings")
    except (OSError, ValueError) as exc:
        raise UserFacingError(f"{path.name}/config.json cannot be read: {exc}") from None
    if not isinstance(config, dict):
        raise UserFacingError(f"{path.name}/config.json is not a table of settings.")
    kind = config.get("model_type")
    if kind not in FAMILIES:
        raise UserFacingError(
            f"{path.name} holds a model of type {kind!r}; the workbench opens the GPT-2 family "
            "(model_type \"gpt2\": GPT-2, DistilGPT-2 and models saved in its shape) and the "
            "Llama family (model_type \"llama\": TinyLlama, SmolLM and models saved in its "
            "shape) as language models, and the BERT family (model_type \"bert\": BERT and "
            "models saved in its shape) as a masked language model. A folder of another "
            "family cannot be opened yet.")
    return config


def _weights_file(path: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (path / name).is_file():
            return path / name
    if any((path / f"{name}.index.json").is_file()
           for name in ("model.safetensors", "pytorch_model.bin")):
        raise UserFacingError(f"{path.name} holds its weights in several shards; the workbench "
                              "reads one model.safetensors file.")
    raise UserFacingError(f"{path.name} has no model.safetensors (or pytorch_model.bin): copy "
                          "the whole model folder, weights included.")


def _saved_shapes(file: Path, family, model_config) -> dict[str, _Shape]:
    """The app's names and shapes of the tensors a safetensors file holds, read from its
    header alone: nothing is allocated for a file that does not fit the config."""
    try:
        header, _ = read_header(file)
        saved = {name: tuple(entry["shape"]) for name, entry in header.items()}
    except (OSError, DamagedFileError) as exc:
        raise UserFacingError(f"{file.name} is not a safetensors file that can be read "
                              f"({exc}); copy the model folder again.") from None
    return {name: _Shape(shape)
            for name, shape in family.app_shapes(saved, model_config).items()}


class _Shape:
    """A tensor known by its shape alone (what `check_fits` compares)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def _read_tensors(file: Path, family, check: Callable[[], object] | None = None
                  ) -> dict[str, np.ndarray]:
    """The family's tensors of the file as float32 numpy (half precision widened); the
    buffers it rebuilds are not read."""
    try:
        if file.suffix == ".safetensors":
            return read_tensors(file, family.wanted, check)
        check_regular(file)
        tensors = torch.load(file, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, ValueError, EOFError) as exc:
        raise UserFacingError(f"{file.name} cannot be read ({exc}); the file is damaged or "
                              "was cut short. Copy the model folder again.") from None
    if not isinstance(tensors, dict):
        raise UserFacingError(f"{file.name} holds no table of tensors.")
    return {k: v.detach().float().numpy() for k, v in tensors.items()
            if isinstance(v, torch.Tensor)}


def _tokenizer(path: Path, config: dict[str, Any], vocab_size: int) -> PretrainedTokenizer:
    file = path / "tokenizer.json"
    if not file.is_file():
        raise UserFacingError(
            f"{path.name} has no tokenizer.json (the fast tokenizer's file). Where the folder "
            "has vocab.json and merges.txt instead, on a machine with `transformers` run "
            "AutoTokenizer.from_pretrained(folder).save_pretrained(folder) to write it.")
    try:
        tokenizer = PretrainedTokenizer(read_text(file, "tokenizer"),
                                        config.get("bos_token_id"), config.get("eos_token_id"))
    except Exception as exc:  # noqa: BLE001 - the library raises a bare Exception for bad JSON
        raise UserFacingError(f"{path.name}/tokenizer.json cannot be read ({exc}).") from None
    if tokenizer.vocab_size > vocab_size:
        raise UserFacingError(f"{path.name}: its tokenizer has {tokenizer.vocab_size:,} tokens "
                              f"but the model only {vocab_size:,}; they belong to different "
                              "models.")
    return tokenizer
