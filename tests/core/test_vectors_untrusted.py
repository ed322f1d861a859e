"""No code from files: a gensim pickle is refused unless trusted, and one that runs code is
never opened by default. Malformed vectors: tab-separated GloVe, NaN, repeated words."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from workbench.core.embeddings.interchange import CodeInFileError, load_vectors
from workbench.core.jobs import UserFacingError


class _RunsCode:
    """A pickle payload that writes a marker file when unpickled (as an attack would)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_a_gensim_pickle_is_refused_with_the_reason_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.kv"
    path.write_bytes(pickle.dumps(_RunsCode(marker)))
    with pytest.raises(CodeInFileError) as refused:
        load_vectors(path, "gensim")
    message = str(refused.value)
    assert "runs whatever code" in message and "save_word2vec_format" in message
    assert not marker.exists()


def test_a_trusted_pickle_of_nan_vectors_is_refused_naming_the_word(tmp_path):
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(3)
    keyed.add_vectors(["good", "bad"], np.array([[1, 2, 3], [1, np.nan, 3]], np.float32))
    keyed.save(str(tmp_path / "v.kv"))
    with pytest.raises(UserFacingError, match="vector of 'bad': some values are not finite"):
        load_vectors(tmp_path / "v.kv", "gensim", trust_code=True)


def test_tab_separated_glove_reads_as_numbers_not_whole_lines(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("the\t0.1\t0.2\t0.3\nking\t1\t2\t3\n", encoding="utf-8")
    vectors = load_vectors(path, "glove")
    assert vectors.words == ["the", "king"] and vectors.size == 3
    path.write_text("the;0.1;0.2\n", encoding="utf-8")
    with pytest.raises(UserFacingError, match="separated by spaces or tabs"):
        load_vectors(path, "glove")


def test_repeated_words_keep_their_first_vector_and_say_so(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("the 1 2\nking 3 4\nthe 5 6\n", encoding="utf-8")
    vectors = load_vectors(path, "glove")
    assert vectors.words == ["the", "king"]
    np.testing.assert_array_equal(vectors.vector("the"), [1, 2])
    assert "1 repeated words" in vectors.notes[0] and "'the'" in vectors.notes[0]
