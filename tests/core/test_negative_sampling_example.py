"""The worked negative-sampling example reads a word2vec trained here: its output vectors
(gensim's syn1neg) are kept beside the input vectors, the noise distribution is the counts to
the 3/4, and the loss is the sum of the terms it lists."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.embeddings.training import build_model, vectors_of
from workbench.core.worked.negative_sampling import negative_sampling_example

TEXT = ("the king rules the land . the queen rules the land . a man walks . a woman walks . "
        "the king and the queen walk in the land . ") * 40


@pytest.fixture(scope="module")
def vectors():
    config = EmbeddingConfig(vector_size=12, window=2, min_count=1, workers=1, seed=3,
                             objective="negative", negative=5, epochs=3)
    model = build_model(config)
    sentences = [line.split() for line in TEXT.split(" . ") if line.strip()]
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=3)
    return vectors_of(model, "test")


def sig(x):
    return 1 / (1 + np.exp(-x))


def test_the_loss_is_the_sum_of_its_terms_with_the_models_own_vectors(vectors):
    assert vectors.output_vectors is not None
    assert vectors.output_vectors.shape == vectors.vectors.shape
    worked = negative_sampling_example(vectors.words, vectors.counts, vectors.vectors,
                                       vectors.output_vectors, "king", "rules", k=4, seed=7)
    index = vectors.index
    v_c = vectors.vectors[index["king"]].astype(float)
    u = vectors.output_vectors.astype(float)
    expected = -np.log(sig(u[index["rules"]] @ v_c))
    expected -= sum(np.log(sig(-u[index[w]] @ v_c)) for w in worked.values["noise"])
    assert worked.values["loss"] == pytest.approx(expected)
    assert len(worked.values["noise"]) == 4 and "rules" not in worked.values["noise"]
    again = negative_sampling_example(vectors.words, vectors.counts, vectors.vectors,
                                      vectors.output_vectors, "king", "rules", k=4, seed=7)
    assert again.values["noise"] == worked.values["noise"]  # the seed fixes the draw


def test_the_noise_distribution_flattens_the_counts(vectors):
    worked = negative_sampling_example(vectors.words, vectors.counts, vectors.vectors,
                                       vectors.output_vectors, "queen", "land", k=2)
    noise = worked.lines[0].value
    counts = vectors.counts.astype(float)
    assert noise.sum() == pytest.approx(1.0)
    assert np.allclose(noise, counts ** 0.75 / (counts ** 0.75).sum())
    top = int(np.argmax(counts))
    assert noise[top] < counts[top] / counts.sum()  # the most frequent word loses share
    unigram, flattened = worked.figure.curves
    assert unigram.y[0] > flattened.y[0] and unigram.y[-1] < flattened.y[-1]


def test_unknown_words_and_a_silly_k_are_named(vectors):
    with pytest.raises(ValueError, match="input word 'dragon'"):
        negative_sampling_example(vectors.words, vectors.counts, vectors.vectors,
                                  vectors.output_vectors, "dragon", "land", k=3)
    with pytest.raises(ValueError, match="between 1 and 50"):
        negative_sampling_example(vectors.words, vectors.counts, vectors.vectors,
                                  vectors.output_vectors, "king", "land", k=0)
