"""The Generate console's default prompt comes from the opened corpus, never a fixed string."""

from __future__ import annotations

from workbench.core.corpus.prompt import suggested_prompt
from workbench.core.corpus.statistics import corpus_statistics
from workbench.core.resources import resource_path


def test_a_play_prompts_with_its_most_frequent_speaker():
    folder = resource_path("corpora", "shakespeare-small")
    plays = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.txt"))]
    prompt = suggested_prompt(plays)
    assert prompt == "Ham.\n"  # Hamlet speaks 358 times, more than anyone in the 8 plays
    assert any("\n" + prompt in play for play in plays)  # a line the corpus really has


def test_prose_without_repeated_lines_prompts_with_its_first_words():
    assert suggested_prompt(["\n\n  It was the best of times, it was the worst"]) == "It was the "


def test_a_short_line_seen_once_or_twice_is_not_a_habit():
    text = "Chapter one\nThe rain fell on the town.\nChapter one\nNothing happened."
    assert suggested_prompt([text]) == "Chapter one "


def test_a_corpus_without_letters_has_no_prompt_and_statistics_carry_it():
    assert suggested_prompt(["1 2 3\n4 5 6\n"]) == ""
    stats = corpus_statistics(["Kent.\nSir.\n\nKent.\nNo.\n\nKent.\nAy.\n\nLear.\nGo.\n"])
    assert stats.prompt == "Kent.\n"
