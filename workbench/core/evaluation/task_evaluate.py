"""`workbench evaluate` for the tasks that are not language models: the task's own validation
run on a file, so the figures are the ones its Training panel plots (the same code computes
them, on the file's examples instead of the held-out ones).

- sequence to sequence, a file of pairs: loss and token accuracy under teacher forcing, exact
  match, BLEU and chrF; every source once, with all of its targets in the file as references;
- classification, a labelled file: accuracy, macro-F1, the confusion matrix;
- tagging, CoNLL-U: token accuracy, macro-F1, per-tag F1 and the confusion matrix;
- masked LM, a text file or folder (`masked_lm_evaluate`).
A file that does not fit the model is refused with what does not fit: labels or tags the model
was not trained with, and (unless `allow_unknown`) characters a character model never saw.
"""

from __future__ import annotations

from pathlib import Path

import torch

from workbench.core.config.tasks import task_config_from_dict
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.evaluation.report import (
    EvaluationReport,
    unknown_characters,
    unknown_note,
    unknown_words_note,
)
from workbench.core.jobs import UserFacingError
from workbench.core.metrics import ClassScores


def evaluate_task(model: torch.nn.Module, snapshot, path: Path, allow_unknown: bool = False,
                  seed: int | None = None) -> EvaluationReport:
    """`seed`: the masked LM's corruption (and pairs); None, the task's default."""
    name = snapshot.task_name
    config = task_config_from_dict(snapshot.task)
    model.eval()
    if name == "masked_lm":
        from workbench.core.evaluation.masked_lm_evaluate import (
            DEFAULT_SEED,
            evaluate_masked_lm,
        )

        return evaluate_masked_lm(model, snapshot, path, allow_unknown,
                                  DEFAULT_SEED if seed is None else seed)
    if name == "seq2seq":
        return _seq2seq(model, snapshot, config, path, allow_unknown)
    if name in ("classify", "tag"):
        return _encoder(model, snapshot, config, path, allow_unknown)
    raise UserFacingError(f"{snapshot.label} is a '{name}' model; `workbench evaluate` scores "
                          "language models, masked LMs, sequence to sequence, classification and "
                          "tagging.")


def _seq2seq(model, snapshot, config, path: Path, allow_unknown: bool) -> EvaluationReport:
    from workbench.core.corpus.detokenize import learn_spacing
    from workbench.core.data.pairs import read_pairs
    from workbench.core.data.seq2seq_data import PairData, Side
    from workbench.core.metrics.seq2seq import references_of
    from workbench.core.tasks.seq2seq import Seq2seqTask

    vocabulary = snapshot.tokenizer
    source_tok = tokenizer_from_dict(vocabulary["source"])
    target_tok = tokenizer_from_dict(vocabulary["target"])
    pairs = read_pairs(path, config.source_column, config.target_column, config.skip_header)
    notes = [unknown_note(unknown_characters(source_tok, [s for s, _ in pairs]),
                          allow_unknown, f"{path.name}'s sources"),
             unknown_note(unknown_characters(target_tok, [t for _, t in pairs]),
                          True, f"{path.name}'s targets")]
    sources = list(dict.fromkeys(s for s, _ in pairs))  # each source once, in file order
    references = references_of(pairs, sources)
    limit = getattr(model.config, "max_length", None) or 10**9
    rows = []
    for source, refs in zip(sources, references, strict=True):
        ids, target = source_tok.encode(source), target_tok.encode(refs[0])
        if 0 < len(ids) <= limit and 0 < len(target) < limit:
            rows.append((source, refs, ids, target))
    if len(rows) < len(sources):
        notes.append(f"{len(sources) - len(rows):,} sources longer than the model reads "
                     f"({limit} tokens) or empty were left out.")
    if not rows:
        raise UserFacingError(f"No pair of {path.name} fits the model.")
    notes.append(unknown_words_note(source_tok, [r[2] for r in rows], "source"))
    source_side = Side.of([r[2] for r in rows])
    target_side = Side.of([r[3] for r in rows])
    spacing = vocabulary.get("target_spacing") or learn_spacing(target_tok, [])
    data = PairData(source_tok, target_tok, source_side, target_side, source_side, target_side,
                    [(r[0], r[1][0]) for r in rows], str(path), 0, [r[1] for r in rows],
                    spacing)
    task = Seq2seqTask(config, data)
    task.device = next(model.parameters()).device
    task.prepare_scoring()
    evaluation = task.evaluate(model, amp=False)
    metrics = {"loss": evaluation.loss, **evaluation.metrics}
    several = sum(len(r[1]) > 1 for r in rows)
    if several:
        notes.append(f"{several:,} sources have several targets in the file: each is a "
                     "reference (exact match counts any; BLEU and chrF use them all).")
    return EvaluationReport("seq2seq", str(path), len(rows), "sources", metrics,
                            evaluation.results, [n for n in notes if n])


def _encoder(model, snapshot, config, path: Path, allow_unknown: bool) -> EvaluationReport:
    from workbench.core.tasks.encoder_task import EncoderData, Split
    from workbench.core.tasks.text_data import TextVocabulary

    vocabulary = snapshot.tokenizer
    words = TextVocabulary.from_dict(vocabulary)
    tagging = snapshot.task_name == "tag"
    names = list(vocabulary.get("tags" if tagging else "labels", []))
    index = {n: i for i, n in enumerate(names)}
    if tagging:
        split, texts, gold = _tagged_split(config, path, words, index)
    else:
        split, texts, gold = _labelled_split(config, path, words, index)
    unknown = sorted(set(gold) - set(index))
    if unknown:
        what = "tags" if tagging else "labels"
        raise UserFacingError(f"{path.name} has {what} this model was not trained with: "
                              f"{', '.join(unknown[:20])}. Its {what}: {', '.join(names)}.")
    notes = [unknown_note(unknown_characters(words.tokenizer, texts), allow_unknown, path.name),
             unknown_words_note(words.tokenizer, split.ids, "input")]
    from workbench.core.tasks import task_class

    empty = Split([], [], [])
    task = task_class(snapshot.task_name)(config, EncoderData(words, names, split, split, empty))
    task.device = next(model.parameters()).device
    task.val = split
    evaluation = task.evaluate(model, amp=False)
    metrics = {"loss": evaluation.loss, **evaluation.metrics}
    results = dict(evaluation.results)
    if "classes" in results:
        results["f1"] = ClassScores.from_dict(results["classes"]).f1_by_name()
    return EvaluationReport(snapshot.task_name, str(path), len(gold),
                            "words" if tagging else "sentences", metrics, results,
                            [n for n in notes if n])


def _labelled_split(config, path, words, index):
    from workbench.core.data.labelled import read_labelled
    from workbench.core.tasks.classify import _named
    from workbench.core.tasks.encoder_task import Split
    from workbench.core.tasks.text_data import encode_framed

    # a model trained on the sentiment set knows its labels by name: "0" and "1" are mapped
    pairs = _named(read_labelled(path, config.text_column, config.label_column, config.header),
                   config)
    labels = [label for _, label in pairs]
    if set(labels) - set(index):
        return Split([], [], []), [], labels
    ids, _ = encode_framed(words, [t for t, _ in pairs], config.max_length)
    return Split(ids, [index[lb] for lb in labels], [t for t, _ in pairs]), \
        [t for t, _ in pairs], labels


def _tagged_split(config, path, words, index):
    from workbench.core.data.conllu import read_conllu
    from workbench.core.tasks.tag import encode_sentences

    sentences = list(read_conllu(path, config.column).sentences)
    tags = [t for s in sentences for t in s.tags]
    texts = [" ".join(s.words) for s in sentences]
    if set(tags) - set(index):
        from workbench.core.tasks.encoder_task import Split

        return Split([], [], []), texts, tags
    split, _ = encode_sentences(words.tokenizer, sentences, index, config.max_length)
    return split, texts, tags
