"""Masked-LM pretraining of an encoder (BERT; seeds 002 and 003, SEEDS T16).

Each training sentence is corrupted afresh at every step (`masking.corrupt`: 15% of tokens
chosen, of those 80% [MASK], 10% a random token, 10% kept), the encoder reads the corrupted
sentence in both directions, and the head predicts the original token at the chosen positions
only. Validation corrupts the held-out sentences the same way every time (a fixed seed per
batch), so two validations are comparable: the loss per chosen token and the share of chosen
tokens recovered. The encoder can then start a classifier or a tagger (fine-tuning).

With `next_sentence` the examples are sentence pairs and a second head tells IsNext from
NotNext (`next_sentence`, `sentence_pairs`): the loss and the validation add its terms.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.encoder_tasks import MaskedLmTaskConfig, masked_lm_model
from workbench.core.config.task_models import MaskedLmModelConfig
from workbench.core.data.masking import corrupt
from workbench.core.data.sentences import read_sentences
from workbench.core.data.splits import split_indices
from workbench.core.events import JobFinished, Notice, Progress
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.resources import full_corpus_path
from workbench.core.tasks.base import IGNORE_INDEX, register_task
from workbench.core.tasks.encoder_task import EncoderData, EncoderTask, Split
from workbench.core.tasks.explain import fill_mask
from workbench.core.tasks.next_sentence import (
    pair_arrays,
    pair_evaluation,
    pair_loss,
    pair_split,
)
from workbench.core.tasks.pretrained_start import PretrainedStart, folder_of, folder_tokenizer
from workbench.core.tasks.sentence_pairs import PAIR_SEPARATOR, pair_specials, split_blocks
from workbench.core.tasks.text_data import (
    FIRST_ORDINARY,
    MASK_TEXT,
    TextVocabulary,
    cut_note,
    encode_texts,
    train_vocabulary,
)

_TRAIN, _VALIDATION = 0, 1  # the two streams of corruption draws


def sentence_split(words: TextVocabulary, texts: list[str], max_length: int
                   ) -> tuple[Split, int]:
    """Sentences as the task reads them, each framed and within `max_length` tokens, and how
    many were cut (also what `workbench evaluate` scores a text file with)."""
    framing = len(words.framed([])[0])  # BERT reads [CLS] sentence [SEP]; ours, nothing
    ids, cut = encode_texts(words, texts, max_length - framing)
    framed = [np.asarray(words.framed(list(row))[0], dtype=np.int64) for row in ids]
    return Split(framed, [None] * len(framed), texts), cut


def pair_splits(words: TextVocabulary, lines, parts, config, seed: int,
                streams: tuple[int, ...] = (_TRAIN, _VALIDATION)) -> tuple[list[Split], int]:
    """The framed sentence pairs of each part's blocks of line indices, drawn from its random
    stream (training's and validation's are apart), and how many pairs were cut."""
    pair_specials(words.tokenizer)  # a tokenizer that cannot frame a pair: said now
    rows = [i for part in parts for block in part for i in block]
    encoded = {i: ids.tolist() for i, ids in zip(
        rows, encode_texts(words, [lines[i] for i in rows], 4096)[0], strict=True)}
    splits, cut = [], 0
    for which, part in zip(streams, parts, strict=True):
        split, n_cut = pair_split(part, lines, encoded, words.tokenizer, config.max_length,
                                  seed, which, int(getattr(config, "sentence_lines", 1)))
        splits.append(split)
        cut += n_cut
    return splits, cut


@register_task
class MaskedLmTask(EncoderTask):
    name = MaskedLmTaskConfig.name
    names_key = "unused"
    _start: PretrainedStart | None = None  # a run that fine-tunes a BERT folder

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        yield Progress(0, None, "Reading the sentences")
        path = full_corpus_path() if config.dataset == "shakespeare" else \
            Path(config.path).expanduser()
        sentences = read_sentences(path, config.min_words)
        lines = list(sentences.lines)
        seed = recipe.training.seed if recipe is not None else 0
        pairs = bool(getattr(config, "next_sentence", False))
        if pairs:  # whole blocks of consecutive sentences, so a pair never spans two splits
            blocks = split_blocks(sentences.sources, config.val_fraction, seed)
            train_rows, val_rows = ([i for b in part for i in b] for part in blocks)
        else:
            train_rows, val_rows, _ = split_indices(len(lines), config.val_fraction, 0.0, seed)
        train = [lines[i] for i in train_rows]
        val = [lines[i] for i in val_rows]
        folder = folder_of(config)
        if vocabulary is not None:
            words = TextVocabulary.from_dict(vocabulary)
        elif folder is not None:  # fine-tuning a BERT folder: the model's own tokens
            words = TextVocabulary(folder_tokenizer(folder, cls.name))
        else:
            yield Progress(0, None, f"Training the tokenizer on {len(train):,} sentences")
            words = train_vocabulary(train, config)
        if pairs:
            yield Progress(0, None, "Making the sentence pairs")
            splits, cut = pair_splits(words, lines, blocks, config, seed)
            notes = [f"{len(splits[0]):,} training and {len(splits[1]):,} validation pairs "
                     "[CLS] A [SEP] B [SEP], about half of them IsNext."]
            if cut:
                notes.append(f"{cut:,} pairs are longer than {config.max_length} tokens and "
                             "were cut (the longer sentence first).")
            for note in notes:
                yield Notice(note, "info")
            return EncoderData(words, [], splits[0], splits[1], Split([], [], []), notes=notes)
        (train_split, train_cut), (val_split, val_cut) = (
            sentence_split(words, part, config.max_length) for part in (train, val))
        splits, cut = [train_split, val_split], train_cut + val_cut
        notes = [n for n in (cut_note(cut, len(lines), config.max_length),) if n]
        if sentences.dropped_short:
            notes.append(f"{sentences.dropped_short:,} lines under {config.min_words} words "
                         "(speaker names, stage directions) were left out.")
        for note in notes:
            yield Notice(note, "info")
        return EncoderData(words, [], splits[0], splits[1], Split([], [], []), notes=notes)

    def uniform_loss(self) -> float:
        # ln |V| per chosen token, and ln 2 per pair with next-sentence prediction
        return math.log(self.data.vocabulary.tokenizer.vocab_size) + \
            (math.log(2) if self.pairs else 0.0)

    @property
    def pairs(self) -> bool:
        return bool(getattr(self.config, "next_sentence", False))

    def model_config(self, encoder: dict) -> MaskedLmModelConfig:
        return masked_lm_model(encoder, self.pairs)

    def build_model(self, model_config, build):
        folder = folder_of(self.config)
        if folder is None:
            return super().build_model(model_config, build)
        if self._start is None:  # the folder's sizes and weights, the panel's dropout
            self._start = PretrainedStart(folder, getattr(model_config, "dropout", 0.1),
                                          self.name, self.pairs)
        return self._start.build(self.data.vocabulary.tokenizer, build)

    def targets(self, split: Split, rows, tokens, mask, step):
        key = [self.seed, _TRAIN, step] if step is not None else \
            [self.seed, _VALIDATION, int(rows[0])]
        # [CLS] and [SEP] are never chosen (as BERT's pretraining left them); the app's
        # tokenizers frame nothing, so their runs draw as before
        frame = [*self.data.vocabulary.framed([])[0]]
        if self.pairs:  # [CLS] and [SEP] of a pair (the app's <bos> and <eos>)
            frame = [*frame, *pair_specials(self.data.vocabulary.tokenizer)]
        choosable = mask & ~np.isin(tokens, frame) if frame else mask
        corrupted = corrupt(tokens, choosable, np.random.default_rng(key),
                            self.data.vocabulary.mask_id, FIRST_ORDINARY,
                            self.data.vocabulary.tokenizer.vocab_size, self.config.mask_rate)
        arrays = {"tokens": corrupted.inputs, "targets": corrupted.targets}
        return {**arrays, **pair_arrays(split, rows, mask)} if self.pairs else arrays

    def loss_weight(self, batch) -> float:
        """The loss is a mean over the scored tokens (`targets` not IGNORE_INDEX): a rank's share
        under torchrun is its count of them."""
        return float((batch.arrays["targets"] != IGNORE_INDEX).sum())

    def loss(self, model, batch, carry):
        if self.pairs:
            return pair_loss(model, batch), None
        chosen = batch["targets"] != IGNORE_INDEX  # (B, S): the loss is on these only
        logits = model(batch["tokens"], batch["mask"], where=chosen)  # (N, V+1)
        return F.cross_entropy(logits.float(), batch["targets"][chosen]), None

    def score(self, model, batch):
        chosen = batch["targets"] != IGNORE_INDEX
        logits = model(batch["tokens"], batch["mask"], where=chosen).float()
        targets = batch["targets"][chosen]
        loss = F.cross_entropy(logits, targets, reduction="sum")
        return loss, len(targets), targets.cpu().numpy(), logits.argmax(-1).cpu().numpy()

    def metrics(self, true, predicted):
        return {"accuracy": float(np.mean(true == predicted)) if len(true) else 0.0}, {}

    def evaluate(self, model, amp: bool):
        return pair_evaluation(self, model, self.val) if self.pairs else \
            super().evaluate(model, amp)

    @torch.no_grad()
    def preview(self, model, step: int) -> str:
        """A held-out sentence with one word masked, and what the model puts there."""
        split = self.data.val if len(self.data.val) else self.data.train
        text = split.texts[step % len(split)]
        first, _, second = text.partition(f" {PAIR_SEPARATOR} ")
        words = first.split()
        if second:  # each sentence's first words: the pair then fits the model's context
            keep = max(1, self.config.max_length // 4)
            words, second = words[:keep], " ".join(second.split()[:keep])
        middle = len(words) // 2
        probe = " ".join([*words[:middle], MASK_TEXT, *words[middle + 1:]])
        if second:  # the pair as the model reads it, and its IsNext guess against the truth
            probe = f"{probe} {PAIR_SEPARATOR} {second}"
        try:
            answer = fill_mask(model, self.vocabulary(), probe, top_k=3)
        except UserFacingError as exc:  # a held-out line longer than the model reads
            return f"{probe}\n  ({exc})"
        guesses = ", ".join(f"{c!r} {p:.0%}" for c, p in zip(answer.candidates[0],
                                                             answer.probs[0], strict=True))
        shown = f"{probe}\n  [MASK] = {words[middle]!r}; the model: {guesses}"
        if second and answer.is_next is not None:
            truth = "IsNext" if split.targets[step % len(split)][0] == 0 else "NotNext"
            shown += f"\n  {truth}; the model: IsNext {answer.is_next:.0%}"
        return shown

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        def job(control):
            yield JobFinished(result=fill_mask(model, vocabulary, text))

        return JobSpec("Filling in the blanks", job)
