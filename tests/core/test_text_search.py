"""Find in the corpus: literal, case-insensitive, round the text once, a chunk at a time."""

from __future__ import annotations

import pytest

from workbench.core.corpus import text_search
from workbench.core.corpus.text_search import Hit, search_steps


def run(steps):
    fractions = []
    while True:
        try:
            fractions.append(next(steps))
        except StopIteration as stop:
            return stop.value, fractions


TEXT = "Needle first. " + "hay " * 50 + "a second NEEDLE. " + "hay " * 50


def test_forward_finds_the_next_match_after_the_selection_and_wraps():
    first, _ = run(search_steps(TEXT, "needle", 0, 0))
    assert first == Hit(0, 6, False)
    second, _ = run(search_steps(TEXT, "needle", first.start, first.end))
    assert TEXT[second.start:second.end] == "NEEDLE" and not second.wrapped
    again, _ = run(search_steps(TEXT, "needle", second.start, second.end))
    assert again == Hit(0, 6, True)


def test_backward_finds_the_last_match_before_the_selection_and_wraps():
    second = TEXT.index("NEEDLE")
    hit, _ = run(search_steps(TEXT, "Needle", second, second + 6, backward=True))
    assert hit == Hit(0, 6, False)
    hit, _ = run(search_steps(TEXT, "Needle", 0, 6, backward=True))
    assert hit == Hit(second, second + 6, True)


@pytest.mark.parametrize("backward", [False, True])
def test_a_match_across_a_chunk_seam_is_found_and_long_texts_go_in_steps(monkeypatch,
                                                                          backward):
    monkeypatch.setattr(text_search, "SEARCH_CHUNK", 100)
    text = "x" * 997 + "needle" + "y" * 997  # the match spans the seam at 1000
    start = len(text) if backward else 0
    hit, fractions = run(search_steps(text, "NEEDLE", start, start, backward=backward))
    assert hit is not None and text[hit.start:hit.end] == "needle" and not hit.wrapped
    assert len(fractions) >= 9  # it came back between chunks


def test_a_miss_searches_everything_once_and_reports_none(monkeypatch):
    monkeypatch.setattr(text_search, "SEARCH_CHUNK", 1000)
    text = "hay " * 10_000
    hit, fractions = run(search_steps(text, "needle", 500, 500))
    assert hit is None
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert run(search_steps("", "needle", 0, 0))[0] is None
    assert run(search_steps(text, "", 0, 0))[0] is None
