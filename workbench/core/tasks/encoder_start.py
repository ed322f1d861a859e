"""Where an encoder task's encoder starts (before training): a masked-LM run of the app's own
(`[task] pretrained`, its encoder and its vocabulary), a BERT folder (`[task] start_from`,
read by `bert_encoder`), or nothing (a tokenizer trained on the training split).

Apart from `text_data` so that the BERT reader can use `Pretrained` without an import circle.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from workbench.core.jobs import UserFacingError
from workbench.core.tasks.text_data import Pretrained, TextVocabulary, train_vocabulary

_RUN_NAME = re.compile(r"\d{8}-\d{6}-(.+?)(-\d+)?$")


def resolve_run(reference: str) -> Path:
    """A run folder from a path or 'run:NAME' (the newest run of that recipe name)."""
    from workbench.core.training import runs

    reference = reference.strip()
    if not reference.startswith("run:"):
        return Path(reference).expanduser()
    name = reference[4:].strip()
    found = [p for p in runs.list_runs() if _recipe_name(p) == name
             and (p / "checkpoints").is_dir()]
    if not found:
        raise UserFacingError(f"No run named '{name}' with a checkpoint is in {runs.runs_root()}. "
                              f"Train the preset or recipe '{name}' first, or choose its run "
                              "folder.")
    return found[-1]


def _recipe_name(run: Path) -> str:
    """The name of the recipe a run trained: its recipe.toml's (the folder's name adds the
    architecture and corpus, 'mlm-shakespeare-transformer_encoder'), else the folder's label."""

    try:
        from workbench.core.files import bounded

        return str(bounded.parse_toml(bounded.read_text(run / "recipe.toml", "recipe"))["name"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError):
        match = _RUN_NAME.match(run.name)
        return match.group(1) if match else ""


def encoder_vocabulary(config: Any, texts: list[str], notes: list[str], dropout: float = 0.1):
    """The words a classifier or tagger reads (a step generator: its progress, then the
    vocabulary and the pretrained encoder or None): the fine-tuned run's own table when the
    task starts from one (`[task] pretrained`), a BERT folder's tokenizer when it starts from
    that (`[task] start_from`, the encoder then trains with the run's `dropout`), else a
    tokenizer trained on `texts`."""
    from workbench.core.events import Progress

    folder = str(getattr(config, "start_from", "") or "").strip()
    if folder:
        from workbench.core.tasks.bert_encoder import encoder_start

        if config.pretrained.strip():
            raise UserFacingError("The encoder starts from a masked-LM run ('Pretrained "
                                  "encoder') or a BERT folder ('Start from'), not both: clear "
                                  "one.")
        yield Progress(0, None, "Reading the BERT folder")
        pretrained = encoder_start(Path(folder).expanduser(), config.name, dropout,
                                   bool(getattr(config, "bert_pooler", False)))
        notes.append(f"The encoder starts from {Path(folder).name} (its weights and its own "
                     f"tokenizer, the text read as [CLS] … [SEP]), {config.encoder_state}.")
        notes.extend(pretrained.notes)
        return TextVocabulary.from_dict(pretrained.vocabulary), pretrained
    if config.pretrained.strip():
        yield Progress(0, None, "Reading the pretrained encoder")
        pretrained = load_pretrained(config.pretrained)
        notes.append(f"The encoder starts from {pretrained.source} (step {pretrained.step}), "
                     f"{config.encoder_state}.")
        return TextVocabulary.from_dict(pretrained.vocabulary), pretrained
    yield Progress(0, None, "Training the tokenizer")
    return train_vocabulary(texts, config), None


def load_pretrained(reference: str) -> Pretrained:
    """The encoder of a run folder's best checkpoint (its latest when there is no best)."""
    from workbench.core.training.checkpoint_meta import validated_model
    from workbench.core.training.checkpoints import load_checkpoint

    folder = resolve_run(reference)
    checkpoints = folder / "checkpoints"
    path = checkpoints / "best.json"
    if not path.is_file():
        path = checkpoints / "latest.json"
    if not path.is_file():
        raise UserFacingError(f"{folder} has no checkpoint to start from (looked for "
                              f"{checkpoints}/best.json and latest.json).")
    saved = load_checkpoint(path)
    encoder = saved.meta.get("model_config", {}).get("encoder")
    if not isinstance(encoder, dict):
        raise UserFacingError(f"{folder} holds no encoder (its model is "
                              f"'{saved.meta.get('model_config', {}).get('arch')}'). Choose a "
                              "masked-LM run.")
    # as strictly as a checkpoint's own settings: a key dropped unsaid would build an encoder
    # that is not the one its weights trained
    validated_model(encoder, f"The encoder settings saved with {path}")
    weights = {k[len("encoder."):]: v for k, v in saved.model.items()
               if k.startswith("encoder.")}
    tokenizer = saved.meta.get("tokenizer")
    try:  # its tokenizer table is read by the task next: a damaged one named here
        TextVocabulary.from_dict(tokenizer)
    except UserFacingError as exc:  # tokenizer_tables.py names what is wrong
        problem = str(exc).split(": ", 1)[-1].split(". The file", 1)[0]
        raise UserFacingError(f"The tokenizer saved with {path} cannot be used: {problem}, "
                              "so its encoder cannot be fine-tuned. Choose another run."
                              ) from None
    return Pretrained(str(folder), encoder, weights, tokenizer, saved.step)
