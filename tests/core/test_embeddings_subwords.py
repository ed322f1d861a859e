"""fastText's unseen-word vectors are rebuilt in numpy exactly as gensim builds them, so no
gensim object (not even a bound method) travels into the window with the vectors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.embeddings.subwords import SubwordVectors, fnv1a_signed, ngram_bytes
from workbench.core.embeddings.training import train_embeddings_job
from workbench.core.events import JobFinished
from workbench.core.jobs import JobControl, drive

TEXT = "\n".join(["the cat sat on the mat", "a café by the river", "über alles naïve"] * 30)


@pytest.fixture(scope="module")
def fasttext():
    config = EmbeddingConfig(model="fasttext", vector_size=8, window=2, min_count=1, epochs=1,
                             workers=1, seed=1, evaluate=False, min_n=2, max_n=4)
    result = [e for e in drive(train_embeddings_job(TEXT, config, "t"), JobControl())
              if isinstance(e, JobFinished)][0].result
    from gensim.models import FastText

    from workbench.core.embeddings.sentences import sentences_of
    model = FastText(vector_size=8, window=2, min_count=1, workers=1, seed=1, min_n=2, max_n=4)
    model.build_vocab(sentences_of(TEXT, True))
    return result, model.wv


def test_ngrams_and_hashes_match_gensim():
    from gensim.models.fasttext import compute_ngrams_bytes, ft_hash_bytes

    for word in ("cat", "café", "naïve", "日本語", "a", ""):
        assert ngram_bytes(word, 1, 6) == compute_ngrams_bytes(word, 1, 6)
        for gram in ngram_bytes(word, 1, 6):
            assert fnv1a_signed(gram) == ft_hash_bytes(gram)


def test_unseen_word_vectors_match_gensims_get_vector(fasttext):
    _, wv = fasttext
    mine = SubwordVectors(wv.vectors_ngrams, wv.min_n, wv.max_n)
    for word in ("cats", "cafés", "überall", "zzzz", "x"):
        np.testing.assert_allclose(mine.vector(word), wv.get_vector(word), rtol=1e-6, atol=1e-7)


@pytest.mark.slow
def test_trained_vectors_carry_no_gensim_object(fasttext):
    vectors, _ = fasttext
    assert vectors.subwords is not None and "cats" not in vectors
    assert vectors.neighbours("cats", 3)
    for field in dataclasses.fields(vectors):
        value = getattr(vectors, field.name)
        assert not type(value).__module__.startswith("gensim"), field.name
        assert not callable(value), field.name
    assert type(vectors.subwords.ngrams) is np.ndarray
