"""The per-epoch word2vec loss is the same with several worker threads as with one.

gensim's own running loss drops the sums of jobs that run at the same time (each job writes
back the total it read at its start plus its own part), so with 2 workers the curve read about
half the true value and jumped between epochs. These tests train the same corpus with one and
with several workers and ask for the same epoch losses.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.embeddings.exact_loss import ExactLossWord2Vec
from workbench.core.embeddings.training import train_embeddings_job
from workbench.core.events import EpochEnded
from workbench.core.jobs import JobControl, drive


def _sentences(count: int = 4000, length: int = 12, vocabulary: int = 300) -> list[list[str]]:
    rng = np.random.default_rng(7)
    ranks = np.arange(1, vocabulary + 1)
    zipf = (1.0 / ranks) / (1.0 / ranks).sum()
    ids = rng.choice(vocabulary, size=(count, length), p=zipf)
    return [[f"w{i}" for i in row] for row in ids]


def _epoch_losses(sentences, workers: int, epochs: int = 2, **settings) -> list[float]:
    model = ExactLossWord2Vec(vector_size=32, window=4, min_count=1, workers=workers, seed=3,
                              batch_words=500, **settings)  # small jobs: many run at once
    model.build_vocab(sentences)
    losses = []
    for epoch in range(epochs):
        model.train(sentences, total_examples=model.corpus_count, epochs=1,
                    start_alpha=0.025 - 0.01 * epoch, end_alpha=0.015 - 0.01 * epoch,
                    compute_loss=True)
        losses.append(model.get_latest_training_loss())
    return losses


@pytest.mark.parametrize("settings", [dict(sg=1, negative=5, hs=0), dict(sg=0, negative=5, hs=0),
                                      dict(sg=1, negative=0, hs=1)],
                         ids=["skip-gram negative", "cbow negative", "skip-gram hierarchical"])
@pytest.mark.slow
def test_several_workers_report_the_one_worker_loss(settings):
    sentences = _sentences()
    alone = _epoch_losses(sentences, workers=1, **settings)
    together = _epoch_losses(sentences, workers=3, **settings)
    assert all(loss > 0 for loss in alone)
    # thread timing changes the trajectory a little; a lost job would cost 100/96 jobs ≈ 1%,
    # and gensim's racy total lost about half
    np.testing.assert_allclose(together, alone, rtol=0.02)


def test_loss_is_per_epoch_with_workers_and_the_vectors_still_train():
    sentences = _sentences()
    losses = _epoch_losses(sentences, workers=2, epochs=3)
    # falls (epoch 1 to 2 by about 17% here), never a running total (which would grow), and
    # never the racy halving (which would drop epoch 2 to about half of epoch 1)
    assert losses[2] < losses[0] < 1.5 * losses[1]


@pytest.mark.slow
def test_the_job_with_two_workers_plots_the_one_worker_loss():
    text = "\n".join(" ".join(s) for s in _sentences(count=6000))  # 8 jobs an epoch
    losses = {}
    for workers in (1, 2):
        config = EmbeddingConfig(vector_size=32, window=4, min_count=1, epochs=2,
                                 workers=workers, evaluate=False, lowercase=False)
        events = list(drive(train_embeddings_job(text, config), JobControl()))
        losses[workers] = [e.metrics["loss"] for e in events if isinstance(e, EpochEnded)]
    # jobs of 10k words: fewer of them, so the update order moves the total a little more
    np.testing.assert_allclose(losses[2], losses[1], rtol=0.05)


def test_model_saves_and_loads(tmp_path):
    model = ExactLossWord2Vec(_sentences(count=200), vector_size=8, min_count=1, workers=2,
                              epochs=1, compute_loss=True)
    model.save(str(tmp_path / "w2v.model"))
    again = ExactLossWord2Vec.load(str(tmp_path / "w2v.model"))
    np.testing.assert_array_equal(again.wv["w0"], model.wv["w0"])
