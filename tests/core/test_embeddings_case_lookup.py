"""Word vectors trained on lowercased text answer for 'Romeo' with 'romeo'; an exact form, when
there is one, still wins, and a word in no case at all is still reported."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.embeddings import queries
from workbench.core.embeddings.vectors import WordVectors
from workbench.core.jobs import UserFacingError


@pytest.fixture
def lowercased() -> WordVectors:
    return WordVectors(["romeo", "juliet", "montague", "capulet", "sword"], np.array(
        [[1, 0, 0], [1, 0.2, 0], [0, 1, 0], [0.2, 1, 0], [0, 0, 1]], dtype=np.float32))


def test_a_capitalised_query_finds_the_lowercase_word(lowercased):
    assert lowercased.lookup("Romeo") == "romeo"
    assert lowercased.lookup("ROMEO") == "romeo"
    assert lowercased.neighbours("Romeo", 1) == lowercased.neighbours("romeo", 1)
    assert lowercased.neighbours("Romeo", 1)[0][0] == "juliet"  # not romeo itself
    assert lowercased.similarity("Romeo", "Juliet") == pytest.approx(
        lowercased.similarity("romeo", "juliet"))
    assert lowercased.analogy("Romeo", "Juliet", "Montague", k=1)[0][0] == "capulet"
    assert lowercased.odd_one_out(["Romeo", "Juliet", "Sword"]) == "Sword"


def test_the_exact_form_wins_over_another_case():
    vectors = WordVectors(["Will", "will", "shall"], np.eye(3, dtype=np.float32))
    assert vectors.lookup("will") == "will" and vectors.lookup("Will") == "Will"
    assert vectors.lookup("WILL") == "Will"  # the first (most frequent) form
    assert vectors.id_of("will") == 1


def test_a_word_in_no_case_is_still_unknown(lowercased):
    assert lowercased.lookup("Tybalt") is None and "Romeo" not in lowercased
    with pytest.raises(UserFacingError, match="'Tybalt' is not in the vocabulary"):
        lowercased.neighbours("Tybalt")


def test_own_analogies_accept_capitalised_words(lowercased):
    rows = queries.user_analogies(lowercased, "Romeo Juliet Montague Capulet\n")
    assert rows == [("Romeo Juliet Montague Capulet", "capulet", True)]
