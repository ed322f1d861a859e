"""The app's word2vec training (exact per-epoch loss) against plain gensim (issue 5).

1. Throughput: the app's job (ExactLossWord2Vec, one `train()` call per epoch, loss on,
   evaluation off) against `gensim.models.Word2Vec` called directly with one `train()` call
   for all epochs, same corpus, settings and workers; the two alternate (which one goes first
   flips each repeat) and the ratio is the median of the per-repeat ratios, so a busy machine
   slows both sides of a pair alike.
2. Loss: each epoch's loss from the app's model with 2 workers, from one worker (the truth:
   nothing runs concurrently), and from plain gensim with 2 workers (its running total loses
   the sums of jobs that run at the same time).

Run: .venv/bin/python -m benchmarks.bench_embedding_loss [--repeats 5 --epochs 3 --full]
"""

from __future__ import annotations

import argparse
import statistics
import time

MIN_ALPHA = 1e-4


def _corpus(full: bool):
    from workbench.core.corpus.loading import load_corpus
    from workbench.core.resources import default_corpus_path, full_corpus_path

    return load_corpus(full_corpus_path() if full else default_corpus_path()).text


def throughput(text: str, repeats: int, epochs: int, workers: int) -> dict[str, float]:
    from gensim.models import Word2Vec

    from workbench.core.config.embeddings import EmbeddingConfig
    from workbench.core.embeddings.sentences import sentences_of
    from workbench.core.embeddings.training import train_embeddings_job
    from workbench.core.jobs import JobControl, drive

    config = EmbeddingConfig(epochs=epochs, workers=workers, evaluate=False)
    words = sum(len(s) for s in sentences_of(text, True)) * epochs

    def app() -> float:
        start = time.perf_counter()
        list(drive(train_embeddings_job(text, config), JobControl()))
        return words / (time.perf_counter() - start)

    def direct() -> float:
        start = time.perf_counter()
        sentences = sentences_of(text, True)  # gensim needs token lists too
        model = Word2Vec(vector_size=config.vector_size, window=config.window,
                         min_count=config.min_count, sample=config.sample, sg=1, hs=0,
                         negative=config.negative, workers=workers, seed=config.seed,
                         alpha=config.alpha, min_alpha=MIN_ALPHA)
        model.build_vocab(sentences)
        model.train(sentences, total_examples=model.corpus_count, epochs=epochs,
                    compute_loss=True)
        return words / (time.perf_counter() - start)

    app_runs, direct_runs = [], []
    for repeat in range(repeats):
        pair = (app, direct) if repeat % 2 == 0 else (direct, app)
        results = {fn: fn() for fn in pair}
        app_runs.append(results[app])
        direct_runs.append(results[direct])
    ratios = [a / d for a, d in zip(app_runs, direct_runs, strict=True)]
    return {"app": statistics.median(app_runs), "direct": statistics.median(direct_runs),
            "ratio": statistics.median(ratios), "ratios": ratios}


def epoch_losses(text: str, epochs: int) -> dict[str, list[float]]:
    from gensim.models import Word2Vec

    from workbench.core.embeddings.exact_loss import ExactLossWord2Vec
    from workbench.core.embeddings.sentences import sentences_of

    sentences = sentences_of(text, True)
    out = {}
    for label, cls, workers in (("app, 1 worker", ExactLossWord2Vec, 1),
                                ("app, 2 workers", ExactLossWord2Vec, 2),
                                ("gensim, 1 worker", Word2Vec, 1),
                                ("gensim, 2 workers", Word2Vec, 2)):
        model = cls(vector_size=100, window=5, min_count=5, workers=workers, seed=1, sg=1)
        model.build_vocab(sentences)
        losses = []
        for epoch in range(epochs):
            start = 0.025 - (0.025 - MIN_ALPHA) * epoch / epochs
            end = 0.025 - (0.025 - MIN_ALPHA) * (epoch + 1) / epochs
            model.train(sentences, total_examples=model.corpus_count, epochs=1,
                        start_alpha=start, end_alpha=end, compute_loss=True)
            losses.append(model.get_latest_training_loss())
        out[label] = losses
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="the 5 MB corpus, not the 1 MB one")
    args = parser.parse_args()
    text = _corpus(args.full)
    numbers = throughput(text, args.repeats, args.epochs, args.workers)
    print(f"training words/s ({args.workers} workers): app {numbers['app']:,.0f}, gensim direct "
          f"{numbers['direct']:,.0f}, ratio (median of pairs) {numbers['ratio']:.3f} "
          f"({', '.join(f'{r:.3f}' for r in numbers['ratios'])})")
    print("loss per epoch (summed over the epoch's pairs):")
    for label, losses in epoch_losses(text, args.epochs).items():
        print(f"  {label:18s} " + "  ".join(f"{loss:12,.0f}" for loss in losses))


if __name__ == "__main__":
    main()
