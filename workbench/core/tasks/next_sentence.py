"""The masked-LM task's next-sentence option (`[task] next_sentence`; BERT's second pretraining
task, Devlin et al. 2019, sec. 3.1; SEEDS T16): its examples, batch arrays, loss and validation.

Examples are pairs [CLS] A [SEP] B [SEP] (`sentence_pairs`), masked as single sentences are
(never [CLS] or [SEP]). The model reads the pair with segment ids (A 0, B 1) and has a second
head on the [CLS] state; the loss is the masked-LM cross-entropy per chosen token plus the
next-sentence cross-entropy per pair, and validation reports both and both accuracies.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.data.masking import IGNORE_INDEX
from workbench.core.tasks.base import Evaluation
from workbench.core.tasks.encoder_task import EVAL_BATCH, Split
from workbench.core.tasks.sentence_pairs import (
    IS_NEXT,
    NOT_NEXT,
    PAIR_SEPARATOR,
    frame_pair,
    make_pairs,
    pair_specials,
    segment_rows,
)
from workbench.core.tasks.sequences import fixed_batches

_PAIR_STREAM = 7  # the random stream that draws the pairs, apart from the masking's


def pair_split(blocks: list[list[int]], lines, encoded: dict[int, list[int]], tokenizer,
               max_length: int, seed: int, which: int, span: int = 1) -> tuple[Split, int]:
    """The pairs of one split's blocks, framed: ids, targets (label, where B starts) and the
    texts "A ||| B"; and how many pairs were cut to `max_length`. A "sentence" A or B is
    `span` consecutive lines of a block (BERT's are spans of contiguous text)."""
    cls, sep = pair_specials(tokenizer)
    rng = np.random.default_rng([seed, _PAIR_STREAM, which])
    spans: list[list[int]] = []  # line indices of each span; blocks of span indices next
    span_blocks = []
    for block in blocks:
        span_blocks.append(list(range(len(spans), len(spans) + -(-len(block) // span))))
        spans.extend(block[i:i + span] for i in range(0, len(block), span))
    text = [" ".join(lines[i] for i in part) for part in spans]
    ids, targets, texts, cut = [], [], [], 0
    for pair in make_pairs(span_blocks, text, rng):
        first = [t for i in spans[pair.first] for t in encoded[i]]
        second = [t for i in spans[pair.second] for t in encoded[i]]
        row, start, was_cut = frame_pair(first, second, cls, sep, max_length)
        ids.append(row)
        targets.append((IS_NEXT if pair.is_next else NOT_NEXT, start))
        texts.append(f"{text[pair.first]} {PAIR_SEPARATOR} {text[pair.second]}")
        cut += was_cut
    return Split(ids, targets, texts), cut


def pair_arrays(split: Split, rows: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """A batch's segment ids (B, S) and next-sentence labels (B,)."""
    labels = np.asarray([split.targets[i][0] for i in rows], dtype=np.int64)
    starts = [split.targets[i][1] for i in rows]
    return {"segments": segment_rows(starts, mask), "is_next": labels}


def pair_loss(model, batch) -> torch.Tensor:
    """Masked-LM cross-entropy (mean over the chosen tokens) + next-sentence cross-entropy
    (mean over the pairs), BERT's pretraining loss."""
    chosen = batch["targets"] != IGNORE_INDEX
    logits, pair = model(batch["tokens"], batch["mask"], where=chosen,
                         segments=batch["segments"], pairs=True)
    return (F.cross_entropy(logits.float(), batch["targets"][chosen])
            + F.cross_entropy(pair.float(), batch["is_next"]))


@torch.no_grad()
def pair_evaluation(task, model, split: Split) -> Evaluation:
    """Both losses and both accuracies over `split` (the loss the best checkpoint follows is
    their sum, as training's); NaN for an empty split."""
    was_training = model.training
    model.eval()
    sums = {"mlm": 0.0, "nsp": 0.0, "chosen": 0, "pairs": 0, "tokens_right": 0,
            "pairs_right": 0}
    try:
        for rows in fixed_batches(len(split), EVAL_BATCH):
            batch = task.rows_batch(split, rows, None).to(task.device)
            chosen = batch["targets"] != IGNORE_INDEX
            logits, pair = model(batch["tokens"], batch["mask"], where=chosen,
                                 segments=batch["segments"], pairs=True)
            targets, labels = batch["targets"][chosen], batch["is_next"]
            sums["mlm"] += float(F.cross_entropy(logits.float(), targets, reduction="sum"))
            sums["nsp"] += float(F.cross_entropy(pair.float(), labels, reduction="sum"))
            sums["chosen"] += len(targets)
            sums["pairs"] += len(labels)
            sums["tokens_right"] += int((logits.argmax(-1) == targets).sum())
            sums["pairs_right"] += int((pair.argmax(-1) == labels).sum())
    finally:
        model.train(was_training)
    if not sums["pairs"]:
        return Evaluation(float("nan"), {}, {})
    mlm = sums["mlm"] / max(sums["chosen"], 1)
    nsp = sums["nsp"] / sums["pairs"]
    return Evaluation(mlm + nsp, {"accuracy": sums["tokens_right"] / max(sums["chosen"], 1),
                                  "nsp_accuracy": sums["pairs_right"] / sums["pairs"],
                                  "mlm_loss": mlm, "nsp_loss": nsp}, {})
