"""Sequence classification: a label per sentence (SLP3 9.4.2; seed 002's sentiment classifier).

The encoder reads the sentence, the pooling makes one vector of its states, a linear layer
and softmax give the label distribution; the loss is the cross-entropy of the gold label,
averaged over the sentences of the batch, trained end to end (9.4.2: "no per-token losses").
Validation reports accuracy, per-class precision/recall/F1, macro-F1 and the confusion matrix.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.encoder_tasks import ClassifyTaskConfig
from workbench.core.config.task_models import ClassifierModelConfig
from workbench.core.data.builtin import restaurant_reviews
from workbench.core.data.label_limits import check_class_count
from workbench.core.data.labelled import LabelledData, read_labelled
from workbench.core.data.splits import split_indices, unseen_labels, unseen_report
from workbench.core.events import JobFinished, Notice, Progress
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.metrics import class_scores
from workbench.core.resources import dataset_path
from workbench.core.tasks.base import register_task
from workbench.core.tasks.encoder_start import encoder_vocabulary
from workbench.core.tasks.encoder_task import EncoderData, EncoderTask, Split
from workbench.core.tasks.explain import classify_sentence
from workbench.core.tasks.text_data import (
    TextVocabulary,
    cut_note,
    encode_framed,
    run_dropout,
)

SENTIMENT_NAMES = {"0": "negative", "1": "positive"}  # the data set's readme says so
PREVIEW_SENTENCES = 4


def read_source(config: ClassifyTaskConfig) -> LabelledData:
    if config.dataset == "restaurant-reviews":
        return restaurant_reviews()
    path = dataset_path("sentiment-labelled-sentences") if config.dataset == "sentiment" \
        else Path(config.path).expanduser()
    return read_labelled(path, config.text_column, config.label_column, config.header)


def _named(data: LabelledData, config: ClassifyTaskConfig) -> list[tuple[str, str]]:
    names = SENTIMENT_NAMES if config.dataset == "sentiment" else {}
    return [(e.text, names.get(e.label, e.label)) for e in data.examples]


@register_task
class ClassifyTask(EncoderTask):
    name = ClassifyTaskConfig.name

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        yield Progress(0, None, "Reading the labelled sentences")
        pairs = _named(read_source(config), config)
        seed = recipe.training.seed if recipe is not None else 0
        if config.test_path.strip():
            test = _named(read_labelled(Path(config.test_path).expanduser(), config.text_column,
                                        config.label_column, config.header), config)
            train_rows, val_rows, _ = split_indices(len(pairs), config.val_fraction, 0.0, seed)
        else:
            train_rows, val_rows, test_rows = split_indices(
                len(pairs), config.val_fraction, config.test_fraction, seed)
            test = [pairs[i] for i in test_rows]
        train = [pairs[i] for i in train_rows]
        val = [pairs[i] for i in val_rows]
        notes = []
        pretrained, encoder = None, None
        if vocabulary is not None:  # a resumed run: its own ids and labels
            words = TextVocabulary.from_dict(vocabulary)
            names = list(vocabulary.get("labels", []))
            encoder = vocabulary.get("pretrained_encoder")
        else:
            check_class_count([label for _, label in pairs + test], "label",
                              str(config.label_column))
            names = sorted({label for _, label in train + val + test})
            words, pretrained = yield from encoder_vocabulary(config, [t for t, _ in train],
                                                              notes, run_dropout(recipe))
        if config.start_from.strip() and config.pooling != "cls":
            notes.append(f"The encoder starts from a BERT folder, whose classifiers read the "
                         f"[CLS] state (Pooling = cls); this run pools by '{config.pooling}'.")
        for split, part in (("validation", val), ("test", test)):
            note = unseen_report(unseen_labels([lb for _, lb in train], [lb for _, lb in part]),
                                 len(part), "label", split)
            if note:
                notes.append(note)
        index = {name: i for i, name in enumerate(names)}
        splits, cut = [], 0
        for part in (train, val, test):
            missing = sorted({lb for _, lb in part if lb not in index})
            if missing:
                raise UserFacingError(f"The labels {', '.join(missing)} are not among the "
                                      f"labels this run was trained with ({', '.join(names)}).")
            ids, n_cut = encode_framed(words, [t for t, _ in part], config.max_length)
            cut += n_cut
            splits.append(Split(ids, [index[lb] for _, lb in part], [t for t, _ in part]))
        notes.append(cut_note(cut, len(pairs) + (len(test) if config.test_path else 0),
                              config.max_length))
        if len(train) < 2:
            raise UserFacingError(f"Only {len(train)} sentence is left for training. Use a "
                                  "larger file or lower the held-out shares.")
        for note in filter(None, notes):
            yield Notice(note, "info" if note.startswith("The encoder") else "warning")
        return EncoderData(words, names, *splits, pretrained=pretrained, encoder=encoder,
                           notes=[n for n in notes if n])

    def model_config(self, encoder: dict) -> ClassifierModelConfig:
        # a tokenizer that writes a token before the text writes BERT's [CLS] there
        cls_in_text = bool(self.data.vocabulary.framed([])[1])
        return ClassifierModelConfig(encoder=encoder, num_labels=len(self.data.names),
                                     pooling=self.config.pooling, output=self.config.output,
                                     cls_in_text=cls_in_text,
                                     pooler=bool(self.config.bert_pooler))

    def build_model(self, model_config, build):
        model = super().build_model(model_config, build)
        head = self.data.pretrained.head if self.data.pretrained is not None else {}
        if head and model.pooler is not None:  # BERT's pooler, read from its folder
            model.pooler.load_state_dict(head)
        return model

    def targets(self, split: Split, rows, tokens, mask, step):
        return {"labels": np.asarray([split.targets[i] for i in rows], dtype=np.int64)}

    def loss(self, model, batch, carry):
        self.prepare(model)
        logits = model(batch["tokens"], batch["mask"])  # (B, K)
        return F.cross_entropy(logits.float(), batch["labels"]), None

    def score(self, model, batch):
        logits = model(batch["tokens"], batch["mask"]).float()
        loss = F.cross_entropy(logits, batch["labels"], reduction="sum")
        return (loss, len(logits), batch["labels"].cpu().numpy(),
                logits.argmax(-1).cpu().numpy())

    def metrics(self, true, predicted):
        scores = class_scores(true, predicted, tuple(self.data.names))
        return ({"accuracy": scores.accuracy, "macro_f1": scores.macro_f1},
                {"classes": scores.to_dict()})

    @torch.no_grad()
    def preview(self, model, step: int) -> str:
        split = self.data.val if len(self.data.val) else self.data.train
        rows = np.arange(min(PREVIEW_SENTENCES, len(split)))
        batch = self.rows_batch(split, rows, None).to(self.device)
        was_training = model.training
        model.eval()
        try:
            probs = torch.softmax(model(batch["tokens"], batch["mask"]).float(), dim=-1).cpu()
        finally:
            model.train(was_training)
        lines = []
        for row, p in zip(rows, probs, strict=True):
            guess, gold = int(p.argmax()), split.targets[row]
            mark = "✓" if guess == gold else "✗"
            lines.append(f"{mark} {self.data.names[guess]} ({float(p[guess]):.0%}), gold "
                         f"{self.data.names[gold]}: {split.texts[row]}")
        return "\n".join(lines)

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        def job(control):
            yield JobFinished(result=classify_sentence(model, vocabulary, text))

        return JobSpec("Classifying", job)
