"""A language model that starts from a Hugging Face model folder (fine-tuning), instead of
the Architecture panel's new model: the folder's sizes and weights, and the corpus read with
the folder's own tokenizer.

The memory check's build on the meta device reads no weights; the real build reads them once.
A resumed run reads the folder again (its checkpoint's weights then replace the folder's), so
the folder must still be where the run found it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from workbench.core.jobs import UserFacingError


def folder_of(config: Any) -> Path | None:
    """The model folder a language-model task config starts from, or None (a new model)."""
    value = str(getattr(config, "start_from", "") or "").strip()
    return Path(value).expanduser() if value else None


def folder_tokenizer(folder: Path):
    from workbench.core.pretrained import open_tokenizer

    _check_folder(folder)
    return open_tokenizer(folder)


def _check_folder(folder: Path) -> None:
    from workbench.core.pretrained import model_folder_of

    if model_folder_of(folder) is None:
        raise UserFacingError(f"'Start from' names {folder}, which is not a model folder (a "
                              "folder with config.json, model.safetensors and tokenizer.json). "
                              "Choose the folder of a GPT-2 model, or clear 'Start from'.")


def same_tokenizer(tokenizer: Any, folder: Path) -> bool:
    """Whether `tokenizer` is the folder's own (the ids the model's embedding rows mean)."""
    mine = tokenizer.to_dict()
    return (mine.get("kind") == "pretrained"
            and mine.get("tokenizer_json") == folder_tokenizer(folder).to_dict()["tokenizer_json"])


class PretrainedStart:
    """Builds the folder's model with its weights, for one run."""

    def __init__(self, folder: Path, dropout: float) -> None:
        self.folder, self.dropout = folder, dropout
        self._weights: dict[str, Any] | None = None

    def build(self, tokenizer: Any, build: Callable[[Any], Any]):
        from workbench.core.pretrained import model_config_of, open_model

        _check_folder(self.folder)
        if not same_tokenizer(tokenizer, self.folder):
            raise UserFacingError(
                f"This run starts from {self.folder.name}, but its corpus was read with the "
                f"{tokenizer.kind} tokenizer; the model reads its own tokens. Train again: the "
                "corpus is then read with the folder's tokenizer.")
        config = dataclasses.replace(model_config_of(self.folder), dropout=self.dropout)
        model = build(config)
        if any(p.is_meta for p in model.parameters()):
            return model  # the memory check's build: sizes only, no weights read for it
        if self._weights is None:
            self._weights = open_model(self.folder)[1]
        model.load_state_dict({k: torch.from_numpy(v) for k, v in self._weights.items()})
        return model


def tokens_for_start(config: Any, corpus: Any, tokens: Any, control: Any):
    """The session's tokenized corpus, read again with the model folder's tokenizer when the
    run fine-tunes one (the same held-out pieces: `tokens.config` records them)."""
    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.events import JobFinished, Notice

    folder = folder_of(config)
    if folder is None or same_tokenizer(tokens.tokenizer, folder):
        return tokens
    tokenizer = folder_tokenizer(folder)
    yield Notice(f"Fine-tuning {folder.name}: its own sizes and weights (not the Architecture "
                 f"panel's model), and the corpus read with its own tokenizer "
                 f"({tokenizer.vocab_size:,} tokens); the held-out text is the same.", "info")
    result = tokens
    for event in tokenize_job(corpus, tokens.config, tokenizer).job(control):
        if isinstance(event, JobFinished):
            result = event.result
        else:
            yield event
    return result
