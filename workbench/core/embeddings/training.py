"""Train word2vec or fastText (gensim) on a corpus as a job, one epoch per call.

gensim reports nothing inside an epoch, so progress and cancel act between epochs. Training one
epoch per `train()` call with the learning rate decayed linearly across the whole run gives the
same schedule as one long call, and a loss per epoch: gensim resets its running loss at each
call, so the number is that epoch's summed negative-sampling (or hierarchical-softmax) loss over
all (centre, context) pairs, not a cumulative total. fastText reports no loss in gensim; the
job says so instead of plotting zeros.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.embeddings import evaluation
from workbench.core.embeddings.sentences import sentences_of
from workbench.core.embeddings.subwords import SubwordVectors
from workbench.core.embeddings.vectors import WordVectors
from workbench.core.events import EpochEnded, Event, JobFinished, Notice, Progress
from workbench.core.jobs import JobControl, JobSpec, UserFacingError

MIN_ALPHA = 1e-4
EPOCH_STOP_NOTE = ("Word-vector training stops between epochs: gensim cannot be interrupted "
                   "inside one. Stopping waits for the epoch in progress; quitting waits at "
                   "most 5 s for it, then quits without it.")


def build_model(config: EmbeddingConfig):
    from gensim.models import FastText

    common = dict(
        vector_size=config.vector_size, window=config.window, min_count=config.min_count,
        sample=config.sample, sg=1 if config.architecture == "skip-gram" else 0,
        hs=1 if config.objective == "hierarchical" else 0,
        negative=config.negative if config.objective == "negative" else 0,
        workers=config.workers, seed=config.seed, alpha=config.alpha, min_alpha=MIN_ALPHA,
        # gensim draws each centre word's window from 1..m unless told to keep it at m
        shrink_windows=config.window_kind == "shrinking",
    )
    if config.model == "fasttext":
        return FastText(min_n=config.min_n, max_n=config.max_n, **common)
    # gensim's own loss loses the sums of concurrent worker jobs (see exact_loss.py)
    from workbench.core.embeddings.exact_loss import ExactLossWord2Vec

    return ExactLossWord2Vec(**common)


def window_text(config: EmbeddingConfig) -> str:
    """Which context window the vectors were trained with, in words."""
    if config.window_kind == "fixed":
        return f"fixed window of {config.window} words each side"
    return (f"shrinking window of 1 to {config.window} words each side, drawn per centre word "
            "(gensim's default)")


def vectors_of(model, source: str) -> WordVectors:
    wv = model.wv
    counts = np.array([wv.get_vecattr(w, "count") for w in wv.index_to_key], dtype=np.int64)
    vectors = WordVectors(list(wv.index_to_key), wv.vectors.copy(), counts, source)
    vectors.architecture = "skip-gram" if getattr(model, "sg", 1) else "CBOW"
    from gensim.models import FastText

    if isinstance(model, FastText):  # character n-grams give any word a vector
        vectors.subwords = SubwordVectors(wv.vectors_ngrams, wv.min_n, wv.max_n)
    if getattr(model, "negative", 0) and getattr(model, "syn1neg", None) is not None:
        vectors.output_vectors = np.asarray(model.syn1neg, dtype=np.float32).copy()
        vectors.noise_exponent = float(getattr(model, "ns_exponent", 0.75))
    return vectors


def train_embeddings_job(text: str, config: EmbeddingConfig, name: str = "corpus") -> JobSpec:
    problems = config.problems()
    if problems:
        raise UserFacingError("Invalid word-vector settings: " + " ".join(problems))
    title = f"Training {config.model} on {name}"
    return JobSpec(title, lambda control: _train(control, text, config, name),
                   stop_note=EPOCH_STOP_NOTE)


def _train(control: JobControl, text: str, config: EmbeddingConfig, name: str) -> Iterator[Event]:
    epochs = config.epochs
    yield Progress(0, epochs, "building the vocabulary")
    sentences = sentences_of(text, config.lowercase)
    model = build_model(config)
    model.build_vocab(sentences)
    if len(model.wv) == 0:
        raise UserFacingError(
            f"No word occurs {config.min_count} times in {name}. Lower the minimum count or "
            "load a larger corpus.")
    reports_loss = config.model == "word2vec"
    if not reports_loss:
        yield Notice("fastText in gensim reports no training loss; the loss curve stays "
                     "empty, and the evaluation curves show progress instead.", "info")
    started = time.monotonic()
    for epoch in range(epochs):
        start_alpha = config.alpha - (config.alpha - MIN_ALPHA) * epoch / epochs
        end_alpha = config.alpha - (config.alpha - MIN_ALPHA) * (epoch + 1) / epochs
        model.train(sentences, total_examples=model.corpus_count, epochs=1,
                    start_alpha=start_alpha, end_alpha=end_alpha, compute_loss=reports_loss)
        metrics = {"words_per_s": model.corpus_total_words / max(time.monotonic() - started,
                                                                   1e-9) * (epoch + 1)}
        if reports_loss:
            metrics["loss"] = float(model.get_latest_training_loss())
        if config.evaluate:
            metrics.update(evaluation.standard_scores(model.wv))
        yield EpochEnded(epoch + 1, metrics)
        yield Progress(epoch + 1, epochs, f"epoch {epoch + 1} of {epochs}")
        control.check()
    vectors = vectors_of(model, f"{config.model} on {name}")
    vectors.notes.append(f"{vectors.architecture}, {len(vectors)} words, "
                         f"{config.vector_size} dimensions, "
                         f"{epochs} epochs, {window_text(config)}")
    yield JobFinished(result=vectors)
