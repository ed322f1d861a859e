"""A vector file with 'nan' or 'inf' in it is refused with the line named: float() reads those
words, and one NaN row would make every neighbour score NaN and the explorer's answers noise."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.embeddings.interchange import load_vectors, save_vectors
from workbench.core.embeddings.vectors import WordVectors
from workbench.core.jobs import UserFacingError


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
@pytest.mark.parametrize("fmt,header", [("word2vec-text", "3 3\n"), ("glove", "")])
def test_non_finite_text_values_name_the_line(tmp_path, value, fmt, header):
    path = tmp_path / "v.txt"
    path.write_text(header + f"the 1 2 3\nking 0.5 {value} 3\nqueen 1 1 1\n", encoding="utf-8")
    line = 3 if header else 2
    with pytest.raises(UserFacingError, match=f"line {line}: '{value}' is not a finite number"):
        load_vectors(path, fmt)


def test_non_finite_binary_values_are_refused(tmp_path):
    path = tmp_path / "v.bin"
    matrix = np.array([[1, 2, 3], [0.5, np.inf, 3]], dtype=np.float32)
    save_vectors(WordVectors(["the", "king"], matrix), path, "word2vec-binary")
    with pytest.raises(UserFacingError, match="not finite"):
        load_vectors(path, "word2vec-binary")
