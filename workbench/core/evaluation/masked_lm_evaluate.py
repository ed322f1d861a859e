"""`workbench evaluate` for a masked LM (the app's own, with or without next-sentence
prediction, and a BERT folder, which opens as one): the task's own validation on a text file
or folder, so the figures are the ones its Training panel plots.

The text is read as the task reads its data (`read_sentences`: one sentence a line, the run's
shortest line), framed as the task frames it (`sentence_split`, or `pair_splits` for a model
with next-sentence prediction: pairs of consecutive spans, half IsNext, drawn from the
validation stream under `seed`), and corrupted by the task's own validation corruption
(`MaskedLmTask.targets`: `masking.corrupt` keyed on the seed and the batch), so one seed gives
one corruption and two models scored with it are compared on the same blanks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from workbench.core.config.tasks import task_config_from_dict
from workbench.core.config.training import TrainingConfig
from workbench.core.data.masking import IGNORE_INDEX
from workbench.core.data.sentences import read_sentences
from workbench.core.evaluation.report import (
    EvaluationReport,
    unknown_characters,
    unknown_note,
    unknown_words_note,
)
from workbench.core.jobs import UserFacingError
from workbench.core.tasks.encoder_task import EVAL_BATCH, EncoderData, Split
from workbench.core.tasks.masked_lm import MaskedLmTask, pair_splits, sentence_split
from workbench.core.tasks.next_sentence import pair_evaluation
from workbench.core.tasks.sentence_pairs import blocks_of
from workbench.core.tasks.sequences import fixed_batches
from workbench.core.tasks.text_data import TextVocabulary, cut_note

DEFAULT_SEED = TrainingConfig().seed  # a run's seed unless its recipe named another


def evaluate_masked_lm(model: torch.nn.Module, snapshot, path: Path,
                       allow_unknown: bool = False, seed: int = DEFAULT_SEED
                       ) -> EvaluationReport:
    """The masked-token loss (nats per masked token) and accuracy of `model` on the text at
    `path`, and with next-sentence prediction that head's loss and accuracy on its pairs."""
    config = task_config_from_dict(snapshot.task)
    words = TextVocabulary.from_dict(snapshot.tokenizer)
    sentences = read_sentences(path, config.min_words)  # empty or not text: refused here
    lines = list(sentences.lines)
    notes = [unknown_note(unknown_characters(words.tokenizer, lines), allow_unknown,
                          path.name)]
    pairs = bool(getattr(config, "next_sentence", False))
    if pairs:
        (split,), cut = pair_splits(words, lines, [blocks_of(sentences.sources)], config,
                                    seed, streams=(1,))  # validation's stream of pairs
        if not len(split):
            raise UserFacingError(f"{path.name} has no two consecutive sentences to make a "
                                  "pair of; a next-sentence model is scored on pairs.")
        if cut:
            notes.append(f"{cut:,} pairs are longer than {config.max_length} tokens and were "
                         "cut (the longer sentence first).")
    else:
        split, cut = sentence_split(words, lines, config.max_length)
        notes.append(cut_note(cut, len(lines), config.max_length))
    if sentences.dropped_short:
        notes.append(f"{sentences.dropped_short:,} lines under {config.min_words} words were "
                     "left out, as the task leaves them out.")
    notes.append(unknown_words_note(words.tokenizer, split.ids, "input"))
    task = MaskedLmTask(config, EncoderData(words, [], split, split, Split([], [], [])))
    task.device = next(model.parameters()).device
    task.seed = seed
    task.val = split
    model.eval()
    masked = _masked_tokens(task, split)
    if pairs:
        evaluation = pair_evaluation(task, model, split)
        metrics = {"loss": evaluation.metrics["mlm_loss"],
                   "accuracy": evaluation.metrics["accuracy"],
                   "nsp_loss": evaluation.metrics["nsp_loss"],
                   "nsp_accuracy": evaluation.metrics["nsp_accuracy"]}
        is_next = sum(1 for label, _ in split.targets if label == 0)
        notes.append(f"{len(split):,} pairs [CLS] A [SEP] B [SEP], {is_next:,} of them IsNext "
                     f"(seed {seed}).")
    else:
        loss, true, predicted = task.run_split(model, split)
        metrics = {"loss": loss, **task.metrics(true, predicted)[0]}
    results = {"masked_tokens": masked, "seed": seed, "mask_rate": float(config.mask_rate)}
    if pairs:
        results["pairs"] = len(split)
    notes.append(f"Masked as in training ({config.mask_rate:.0%} of tokens chosen: 80% [MASK], "
                 f"10% a random token, 10% kept; seed {seed}); the loss is in nats per masked "
                 "token, the accuracy the share of masked tokens recovered.")
    return EvaluationReport("masked_lm", str(path), len(split),
                            "sentence pairs" if pairs else "sentences", metrics, results,
                            [n for n in notes if n])


def _masked_tokens(task: MaskedLmTask, split: Split) -> int:
    """How many tokens the validation corruption chose, batch by batch as it scores them."""
    count = 0
    for rows in fixed_batches(len(split), EVAL_BATCH):
        targets = task.rows_batch(split, rows, None).arrays["targets"]
        count += int(np.sum(targets != IGNORE_INDEX))
    return count
