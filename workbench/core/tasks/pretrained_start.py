"""A language model (a GPT-2 or Llama folder), or a masked LM, classifier or tagger (a BERT
folder), that starts from a Hugging Face model folder (fine-tuning), instead of the Architecture
panel's new model: the folder's sizes and weights, and the text read with the folder's own
tokenizer. (The classifier's and tagger's encoder is read by `bert_encoder`.)

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


def folder_tokenizer(folder: Path, task: str = "language_model"):
    from workbench.core.pretrained import open_tokenizer

    folder_config(folder, task)
    return open_tokenizer(folder)


def language_model_config(folder: Path) -> Any:
    """The model config of the folder a language model starts from (see `folder_config`)."""
    return folder_config(folder, "language_model")


# the tasks that read a BERT folder's encoder (both sides of every token); the language model
# reads a GPT-2 or Llama folder
ENCODER_TASKS = ("masked_lm", "classify", "tag")
_AS = {"masked_lm": "fine-tuned by masked-LM", "classify": "the encoder of a classifier",
       "tag": "the encoder of a tagger"}


def folder_config(folder: Path, task: str, next_sentence: bool = False) -> Any:
    """The model config of the folder a run of `task` starts from; `UserFacingError` for a
    path that is no model folder, or a folder whose model does the other task (a GPT-2 or
    Llama folder predicts the next token, a BERT folder fills in blanks)."""
    from workbench.core.pretrained import model_config_of, model_folder_of

    wanted = "BERT" if task in ENCODER_TASKS else "GPT-2 or Llama"
    if model_folder_of(folder) is None:
        raise UserFacingError(f"'Start from' names {folder}, which is not a model folder (a "
                              "folder with config.json, model.safetensors and tokenizer.json). "
                              f"Choose the folder of a {wanted} model, or clear 'Start from'.")
    config = model_config_of(folder, next_sentence)
    if task == "masked_lm" and config.arch != "masked_lm":
        raise UserFacingError(f"{folder.name} is a {config.title.lower()}, a language model "
                              "(GPT-2's or Llama's kind): it predicts the next token and has no "
                              "masked-LM head, so it cannot be fine-tuned by masked-LM. Choose "
                              "the folder of a BERT model, or clear 'Start from'.")
    if task in ENCODER_TASKS and config.arch != "masked_lm":
        # a decoder's state at a word has read only the words before it: a label or a tag
        # read from it would miss the rest of the sentence, which an encoder task assumes
        raise UserFacingError(f"{folder.name} is a {config.title.lower()}, a language model "
                              "(GPT-2's or Llama's kind): it reads left to right, so its state "
                              "at a word has not seen the words after it, and it cannot be "
                              f"{_AS[task]}, which reads the whole sentence. Choose the folder "
                              "of a BERT model, or clear 'Start from'.")
    if task not in ENCODER_TASKS and not getattr(type(config), "language_model", False):
        raise UserFacingError(f"{folder.name} is a {config.title.lower()} (BERT): it fills in "
                              "blanks and does not predict the next token, so it cannot be "
                              "fine-tuned as a language model. Choose the folder of a GPT-2 "
                              "or Llama model, or clear 'Start from'.")
    return config


def same_tokenizer(tokenizer: Any, folder: Path, task: str = "language_model") -> bool:
    """Whether `tokenizer` is the folder's own (the ids the model's embedding rows mean)."""
    mine = tokenizer.to_dict()
    return (mine.get("kind") == "pretrained"
            and mine.get("tokenizer_json") == folder_tokenizer(folder, task).to_dict()[
                "tokenizer_json"])


def with_dropout(config: Any, dropout: float) -> Any:
    """The folder's config with a run's dropout (a masked LM's is its encoder's)."""
    if hasattr(config, "dropout"):
        return dataclasses.replace(config, dropout=dropout)
    return dataclasses.replace(config, encoder={**config.encoder, "dropout": dropout})


class PretrainedStart:
    """Builds the folder's model with its weights, for one run (`next_sentence`: a BERT read
    with its segment table and next-sentence head, which starts fresh where the folder has
    none)."""

    def __init__(self, folder: Path, dropout: float, task: str = "language_model",
                 next_sentence: bool = False) -> None:
        self.folder, self.dropout, self.task = folder, dropout, task
        self.next_sentence = next_sentence
        self._weights: dict[str, Any] | None = None

    def build(self, tokenizer: Any, build: Callable[[Any], Any]):
        from workbench.core.pretrained import open_model

        folder_config(self.folder, self.task)
        if not same_tokenizer(tokenizer, self.folder, self.task):
            raise UserFacingError(
                f"This run starts from {self.folder.name}, but its corpus was read with the "
                f"{tokenizer.kind} tokenizer; the model reads its own tokens. Train again: the "
                "corpus is then read with the folder's tokenizer.")
        config = with_dropout(folder_config(self.folder, self.task, self.next_sentence),
                              self.dropout)
        model = build(config)
        if any(p.is_meta for p in model.parameters()):
            return model  # the memory check's build: sizes only, no weights read for it
        if self._weights is None:
            self._weights = open_model(self.folder, next_sentence=self.next_sentence)[1]
        # open_model has checked every name: what is missing is a head the folder lacks
        model.load_state_dict({k: torch.from_numpy(v) for k, v in self._weights.items()},
                              strict=not self.next_sentence)
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
