"""Sequence labelling: a tag per word (SLP3 9.4.1, part-of-speech tagging).

"Pre-trained word embeddings serve as inputs and a softmax layer provides a probability
distribution over the part-of-speech tags as output at each time step"; the tag of a step is
the most likely one, the loss the cross-entropy of the gold tag at each word. A word the
tokenizer cuts into several tokens is tagged at its first token (the others carry no loss, as
BERT's taggers do). Validation: token accuracy, per-tag precision/recall/F1 and the confusion
matrix over the words of the held-out sentences.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch.nn.functional as F

from workbench.core.config.encoder_tasks import TagTaskConfig
from workbench.core.config.task_models import TaggerModelConfig
from workbench.core.data.conllu import TaggedData, TaggedSentence, read_conllu
from workbench.core.data.label_limits import check_class_count
from workbench.core.data.splits import split_indices, unseen_labels, unseen_report
from workbench.core.events import JobFinished, Notice, Progress
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.metrics import class_scores
from workbench.core.resources import dataset_path
from workbench.core.tasks.base import IGNORE_INDEX, register_task
from workbench.core.tasks.encoder_start import encoder_vocabulary
from workbench.core.tasks.encoder_task import EncoderData, EncoderTask, Split
from workbench.core.tasks.explain import tag_sentence, word_pieces
from workbench.core.tasks.text_data import (
    TextVocabulary,
    cut_note,
    run_dropout,
)


def read_sources(config: TagTaskConfig) -> tuple[TaggedData, TaggedData | None]:
    """(data to train on, a separate test file or None)."""
    if config.dataset == "ewt":
        folder = dataset_path("ud-english-ewt")
        return (read_conllu(folder / "en_ewt-ud-dev.conllu", config.column),
                read_conllu(folder / "en_ewt-ud-test.conllu", config.column))
    test = read_conllu(Path(config.test_path).expanduser(), config.column) \
        if config.test_path.strip() else None
    return read_conllu(Path(config.path).expanduser(), config.column), test


def encode_sentences(tokenizer, sentences: list[TaggedSentence], index: dict[str, int],
                     max_length: int) -> tuple[Split, int]:
    """Token ids per sentence with the tag index at each word's first token (IGNORE_INDEX on
    the rest), framed as the tokenizer frames every input (a BERT folder's: [CLS] … [SEP],
    which carry no tag); sentences longer than `max_length` tokens are cut there."""
    prefix, suffix = getattr(tokenizer, "frame", ((), ()))
    room = max(1, max_length - len(prefix) - len(suffix))
    before = np.full(len(prefix), IGNORE_INDEX, dtype=np.int64)
    after = np.full(len(suffix), IGNORE_INDEX, dtype=np.int64)
    ids, targets, cut = [], [], 0
    for sentence in sentences:
        pieces, firsts = word_pieces(tokenizer, list(sentence.words))
        tags = np.full(len(pieces), IGNORE_INDEX, dtype=np.int64)
        tags[firsts] = [index[t] for t in sentence.tags]
        cut += len(pieces) > room
        ids.append(np.asarray([*prefix, *pieces[:room], *suffix], dtype=np.int64))
        targets.append(np.concatenate([before, tags[:room], after]))
    # the words joined by spaces (not the `# text =` line), so the words come back by split()
    return Split(ids, targets, [" ".join(s.words) for s in sentences]), cut


@register_task
class TagTask(EncoderTask):
    name = TagTaskConfig.name
    names_key = "tags"

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        yield Progress(0, None, "Reading the CoNLL-U sentences")
        data, test_file = read_sources(config)
        seed = recipe.training.seed if recipe is not None else 0
        sentences = list(data.sentences)
        train_rows, val_rows, test_rows = split_indices(
            len(sentences), config.val_fraction,
            0.0 if test_file is not None else config.test_fraction, seed)
        train = [sentences[i] for i in train_rows]
        val = [sentences[i] for i in val_rows]
        test = list(test_file.sentences) if test_file is not None else \
            [sentences[i] for i in test_rows]
        notes, pretrained, encoder = [], None, None
        if vocabulary is not None:
            words = TextVocabulary.from_dict(vocabulary)
            names = list(vocabulary.get("tags", []))
            encoder = vocabulary.get("pretrained_encoder")
        else:
            tags = [t for s in train + val + test for t in s.tags]
            check_class_count(tags, "tag", text_like=False)
            names = sorted(set(tags))
            words, pretrained = yield from encoder_vocabulary(
                config, [" ".join(s.words) for s in train], notes, run_dropout(recipe))
        train_tags = [t for s in train for t in s.tags]
        for split, part in (("validation", val), ("test", test)):
            held = [t for s in part for t in s.tags]
            notes.append(unseen_report(unseen_labels(train_tags, held), len(held), "tag", split))
        index = {name: i for i, name in enumerate(names)}
        missing = sorted({t for s in train + val + test for t in s.tags} - set(index))
        if missing:
            raise UserFacingError(f"The tags {', '.join(missing)} are not among the tags this "
                                  f"run was trained with.")
        splits, cut = [], 0
        for part in (train, val, test):
            split, n_cut = encode_sentences(words.tokenizer, part, index, config.max_length)
            splits.append(split)
            cut += n_cut
        notes.append(cut_note(cut, len(train) + len(val) + len(test), config.max_length))
        notes = [n for n in notes if n]
        for note in notes:
            yield Notice(note, "info" if note.startswith("The encoder") else "warning")
        return EncoderData(words, names, *splits, pretrained=pretrained, encoder=encoder,
                           notes=notes)

    def model_config(self, encoder: dict) -> TaggerModelConfig:
        return TaggerModelConfig(encoder=encoder, num_tags=len(self.data.names))

    def targets(self, split: Split, rows, tokens, mask, step):
        tags = np.full(tokens.shape, IGNORE_INDEX, dtype=np.int64)
        for r, i in enumerate(rows):
            tags[r, :len(split.targets[i])] = split.targets[i]
        return {"tags": tags}

    def loss_weight(self, batch) -> float:
        """The loss is a mean over the scored tokens (`tags` not IGNORE_INDEX): a rank's share
        under torchrun is its count of them."""
        return float((batch.arrays["tags"] != IGNORE_INDEX).sum())

    def loss(self, model, batch, carry):
        self.prepare(model)
        logits = model(batch["tokens"], batch["mask"])  # (B, S, n_tags)
        return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                               batch["tags"].reshape(-1), ignore_index=IGNORE_INDEX), None

    def score(self, model, batch):
        logits = model(batch["tokens"], batch["mask"]).float()
        tags = batch["tags"]
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tags.reshape(-1),
                               ignore_index=IGNORE_INDEX, reduction="sum")
        scored = tags != IGNORE_INDEX  # a word's first token; padding never
        return (loss, int(scored.sum()), tags[scored].cpu().numpy(),
                logits.argmax(-1)[scored].cpu().numpy())

    def metrics(self, true, predicted):
        scores = class_scores(true, predicted, tuple(self.data.names))
        return ({"accuracy": scores.accuracy, "macro_f1": scores.macro_f1},
                {"classes": scores.to_dict(), "per_tag_f1": scores.f1_by_name()})

    def preview(self, model, step: int) -> str:
        split = self.data.val if len(self.data.val) else self.data.train
        text = split.texts[0]
        answer = tag_sentence(model, self.vocabulary(), text, words=text.split())
        return " ".join(f"{w}/{t}" for w, t in zip(answer.words, answer.predicted, strict=True))

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        words = (settings or {}).get("words")  # already cut into words (gold tags given)

        def job(control):
            yield JobFinished(result=tag_sentence(model, vocabulary, text, words=words))

        return JobSpec("Tagging", job)

