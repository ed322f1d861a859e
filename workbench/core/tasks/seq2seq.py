"""Sequence to sequence: read a source sequence, write its target (SEEDS 2.3 R12, 2.4).

Training is teacher forcing (SLP3 sec. 9.3): the decoder reads <bos> y_1 … y_{m} and is scored on
y_1 … y_m <eos> with the mean cross-entropy over real target tokens (padding ignored), with
an optional share of steps reading the model's own prediction instead (scheduled sampling).
Validation on the held-out pairs (the same ones every time) measures:
- the loss and token accuracy under teacher forcing;
- exact match: the greedy output equals a reference, every token and the <eos> (every target
  the source has in the data is a reference: core/metrics/seq2seq.py);
- BLEU and chrF of the greedy outputs, detokenised, against all of their references;
- accuracy by input length (a structured result the Training panel plots): where the plain
  encoder-decoder's bottleneck shows.
The preview decodes a few held-out sources.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.seq2seq import Seq2seqTaskConfig
from workbench.core.corpus.detokenize import text_decoder
from workbench.core.corpus.tokenizers import EOS
from workbench.core.data.seq2seq_data import pair_batch, prepare_pairs
from workbench.core.generation.seq2seq_decoding import greedy_batch
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.metrics.seq2seq import exact_matches, text_scores
from workbench.core.tasks.base import IGNORE_INDEX, Batch, Evaluation, Task, register_task
from workbench.core.tasks.sequences import epoch_rows
from workbench.core.training.setup import autocast

EVAL_BATCH = 250
PREVIEW_EXAMPLES = 6


@register_task
class Seq2seqTask(Task):
    name = Seq2seqTaskConfig.name

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        return (yield from prepare_pairs(config, vocabulary))

    def vocabulary(self) -> dict:
        return self.data.vocabulary()

    def build_model(self, model_config, build):
        if "seq2seq" not in getattr(model_config, "tasks", ()):
            raise UserFacingError(f"{model_config.title} reads one sequence and predicts its "
                                  "next token; sequence to sequence needs an encoder-decoder. "
                                  "Choose 'RNN encoder-decoder' or 'Transformer "
                                  "encoder-decoder'.")
        return build(dataclasses.replace(
            model_config, source_vocab_size=self.data.source_tokenizer.vocab_size,
            target_vocab_size=self.data.target_tokenizer.vocab_size))

    def start(self, model, training, device) -> None:
        self.device = device
        self.prepare_scoring()
        self.batch_size = training.batch_size
        self.seed = training.seed
        limit = getattr(model.config, "max_length", None)
        longest = max(int(self.data.train_source.lengths.max()),
                      int(self.data.train_target.lengths.max()) + 1)
        if limit is not None and longest > limit:
            raise UserFacingError(f"The longest pair has {longest} tokens on one side; this "
                                  f"model reads at most {limit}. Raise 'Longest sequence' or "
                                  "lower the task's length limits.")

    def batch(self, step: int) -> Batch:
        rows = epoch_rows(len(self.data.train_source), self.batch_size, step, self.seed)
        arrays = pair_batch(self.data.train_source, self.data.train_target, rows)
        return Batch(arrays, tokens=int(arrays["target_mask"].sum()))

    def loss(self, model, batch: Batch, carry):
        logits = model(batch["source"], batch["source_mask"], batch["target_in"],
                       self.config.teacher_forcing if model.training else 1.0)  # (B, T, V)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                               batch["target_out"].reshape(-1), ignore_index=-100)
        return loss, None

    def loss_weight(self, batch: Batch) -> float:
        """The loss is a mean over the real target tokens, so under torchrun a rank's share is
        its count of them (padding differs from rank to rank)."""
        return float((batch.arrays["target_out"] != IGNORE_INDEX).sum())

    def prepare_scoring(self) -> None:
        """The held-out references as ids (exact match) and text (BLEU, chrF), and the decoder
        that writes outputs as text: fixed once, read at every validation."""
        data = self.data
        self.references = data.references()
        self.reference_ids = [[data.target_tokenizer.encode(r) for r in refs]
                              for refs in self.references]
        self.decode = text_decoder(data.target_tokenizer, data.target_spacing)

    @torch.no_grad()
    def evaluate(self, model, amp: bool) -> Evaluation:
        was_training = model.training
        model.eval()
        data = self.data
        total, right, tokens, exact = 0.0, 0, 0, np.zeros(len(data.val_source), dtype=bool)
        outputs: list[str] = [""] * len(data.val_source)
        try:
            for start in range(0, len(data.val_source), EVAL_BATCH):
                rows = np.arange(start, min(start + EVAL_BATCH, len(data.val_source)))
                batch = Batch(pair_batch(data.val_source, data.val_target, rows), 0).to(
                    self.device)
                with autocast(self.device, amp):
                    logits = model(batch["source"], batch["source_mask"], batch["target_in"])
                target, mask = batch["target_out"], batch["target_mask"]
                total += float(F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                               target.reshape(-1), ignore_index=-100,
                                               reduction="sum"))
                right += int(((logits.argmax(-1) == target) & mask).sum())
                tokens += int(mask.sum())
                for row, ids, matched in self._greedy(model, batch, rows):
                    exact[row] = matched
                    outputs[row] = self.decode(ids)
        finally:
            model.train(was_training)
        by_length = accuracy_by_length(data.val_source.lengths, exact)
        text = text_scores(outputs, self.references)
        return Evaluation(total / max(tokens, 1),
                          {"token_accuracy": right / max(tokens, 1),
                           "exact_match": float(exact.mean()), "bleu": text.bleu,
                           "chrf": text.chrf},
                          {"accuracy_by_length": by_length})

    def _greedy(self, model, batch: Batch, rows: np.ndarray):
        """(row, greedy output ids without <eos>, whether it is one of the row's references)
        for each row; an output that never ends (no <eos>) matches none."""
        longest = max(len(r) for row in rows for r in self.reference_ids[row])
        outputs, lengths = greedy_batch(model, batch["source"], batch["source_mask"],
                                        max(int(batch["target_out"].shape[1]), longest + 1))
        for i, row in enumerate(rows):
            n = int(lengths[i])
            ended = n > 0 and int(outputs[i, n - 1]) == EOS
            ids = outputs[i, : n - 1 if ended else n].tolist()
            yield int(row), ids, ended and exact_matches([ids], [self.reference_ids[row]])[0]

    def preview(self, model, step: int) -> str:
        data = self.data
        rows = np.arange(min(PREVIEW_EXAMPLES, len(data.val_source)))
        was_training = model.training
        model.eval()
        try:
            batch = Batch(pair_batch(data.val_source, data.val_target, rows), 0).to(self.device)
            with torch.no_grad():
                outputs, lengths = greedy_batch(model, batch["source"], batch["source_mask"],
                                                int(batch["target_out"].shape[1]))
        finally:
            model.train(was_training)
        lines = []
        for i, (source, target) in enumerate(data.val_pairs[: len(rows)]):
            produced = self.decode(outputs[i, : max(lengths[i] - 1, 0)])
            references = self.references[i]
            mark = "✓" if produced in references else f"✗ (expected {target})"
            lines.append(f"{source}  →  {produced}  {mark}")
        return "\n".join(lines)

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        from workbench.core.generation.seq2seq_console import decode_job

        return decode_job(model, vocabulary, text, settings)


def accuracy_by_length(lengths: np.ndarray, exact: np.ndarray) -> dict[str, list]:
    """Exact match per source length: {"length": [...], "exact_match": [...], "count": [...]}."""
    values = sorted(set(lengths.tolist()))
    return {"length": values,
            "exact_match": [float(exact[lengths == n].mean()) for n in values],
            "count": [int((lengths == n).sum()) for n in values]}

