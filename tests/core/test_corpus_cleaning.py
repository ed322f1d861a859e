"""Corpus cleaning on Project Gutenberg-style texts: header and footer, _italic_ / ~bold~
marks, control characters (a DOS end-of-file byte), a user's exclude pattern; what was removed
is reported with where; a recipe records the cleaning so a run reads the same text again."""

from __future__ import annotations

import pytest

from workbench.core.config.cleaning import CleaningConfig
from workbench.core.corpus.cleaning import clean, detect
from workbench.core.corpus.loading import load_corpus
from workbench.core.jobs import UserFacingError

MODERN = """The Project Gutenberg eBook of Hamlet, by William Shakespeare

This eBook is for the use of anyone anywhere in the United States.

*** START OF THE PROJECT GUTENBERG EBOOK HAMLET ***
Produced by a volunteer.

HAMLET
Enter _Bernardo_ and ~Francisco~, two sentinels.
Ber. Who's there?
[Exeunt.]

*** END OF THE PROJECT GUTENBERG EBOOK HAMLET ***

Section 1. General Terms of Use and Redistributing Project Gutenberg-tm
electronic works
\x1a"""

OLD = """The Project Gutenberg Etext of Macbeth

*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*

MACBETH
First Witch. When shall we three meet again?
snake_case_names stay, and so does a lone _ underscore.

End of the Project Gutenberg EBook of Macbeth
"""

ALL = CleaningConfig(gutenberg=True, markup=True, control=True)


def test_a_modern_gutenberg_text_keeps_only_the_play():
    (name, text), = clean([("hamlet.txt", MODERN)], ALL)[0]
    assert text.startswith("Produced by a volunteer.\n\nHAMLET\n")
    assert "Enter Bernardo and Francisco, two sentinels." in text
    assert text.rstrip().endswith("[Exeunt.]")
    assert "Gutenberg" not in text and "\x1a" not in text and "_" not in text


def test_an_old_style_header_and_footer_and_words_with_underscores():
    (_, text), = clean([("macbeth.txt", OLD)], ALL)[0]
    assert text.startswith("\nMACBETH\n") and "End of the Project" not in text
    assert "snake_case_names stay, and so does a lone _ underscore." in text


def test_the_report_says_what_went_where():
    _, report = clean([("hamlet.txt", MODERN), ("macbeth.txt", OLD)], ALL)
    assert report.counts["gutenberg"] == 4
    assert report.counts["markup"] == 2 and "control" not in report.counts  # in the footer
    header = report.examples[0]
    assert header.document == "hamlet.txt" and header.line == 1
    assert "START OF THE PROJECT GUTENBERG" in header.text
    summary = report.summary()
    assert "Project Gutenberg header and footer: 4 in 2 files" in summary
    assert "_italic_ and ~bold~ marks: 2 in 1 file" in summary
    markup = [r for r in report.examples if r.kind == "markup"]
    assert [r.line for r in markup] == [9, 9] and markup[0].text == "_Bernardo_"


def test_control_characters_go_but_newlines_and_tabs_stay():
    (_, text), = clean([("dos.txt", "a\tb\nc\x00d\x0ce\x1a")], ALL)[0]
    assert text == "a\tb\ncde"
    report = detect([("dos.txt", "x\x1a")])
    assert report.counts == {"control": 1} and "<0x1A>" in report.listing()


def test_an_exclude_pattern_removes_lines_and_sections():
    text = "INTRODUCTION\nThe editor says much.\nACT I.\n[Enter Romeo.]\nRomeo. Hello.\n"
    lines = CleaningConfig(exclude=r"^\[.*\]$")
    (_, kept), = clean([("r.txt", text)], lines)[0]
    assert kept == "INTRODUCTION\nThe editor says much.\nACT I.\nRomeo. Hello.\n"
    section = CleaningConfig(exclude=r"(?s)^INTRODUCTION$.*?(?=^ACT I\.$)")
    cleaned, report = clean([("r.txt", text)], section)
    assert cleaned[0][1].startswith("ACT I.") and report.counts == {"exclude": 1}
    assert CleaningConfig(exclude="(unclosed").problems()


def test_detection_offers_cleaning_and_nothing_changes_without_it(tmp_path):
    path = tmp_path / "hamlet.txt"
    path.write_text(MODERN, encoding="utf-8")
    raw = load_corpus(path)
    assert raw.text == MODERN and raw.cleaned.empty
    assert set(raw.cleanable.counts) == {"gutenberg", "markup", "control"}
    cleaned = load_corpus(path, cleaning=ALL)
    assert "Gutenberg" not in cleaned.text and cleaned.cleanable.empty
    assert cleaned.cleaned.counts["gutenberg"] == 2 and cleaned.cleaning == ALL
    with pytest.raises(UserFacingError, match="removed the whole text"):
        load_corpus(path, cleaning=CleaningConfig(exclude=r"(?s).+"))


def test_the_shipped_default_corpus_has_nothing_to_clean():
    """The eight default plays come without headers, markup or control bytes: loading them
    cleaned or not gives the same text, so the preset curves do not change."""
    from workbench.core.resources import default_corpus_path

    corpus = load_corpus(default_corpus_path())
    assert corpus.cleanable.empty, corpus.cleanable.summary()


def test_a_recipe_keeps_the_cleaning_and_reads_it_back(tmp_path):
    from workbench.core.config.models import LstmConfig
    from workbench.core.training.recipe import Recipe, parse_recipe, recipe_to_toml

    recipe = Recipe("r", str(tmp_path / "c.txt"), LstmConfig(),
                    cleaning=CleaningConfig(gutenberg=True, exclude=r"^\[.*\]$"))
    text = recipe_to_toml(recipe)
    assert "[corpus.cleaning]" in text
    assert parse_recipe(text).cleaning == recipe.cleaning
    plain = recipe_to_toml(Recipe("r", str(tmp_path / "c.txt"), LstmConfig()))
    assert "cleaning" not in plain and parse_recipe(plain).cleaning == CleaningConfig()


def test_a_long_text_is_cleaned_in_pieces_with_the_same_result(monkeypatch):
    from workbench.core.corpus import cleaning

    text = "".join(f"line {i}: _so_ it ~is~,\x07 ok_x_y\n" if i % 3 else f"plain {i}\n"
                   for i in range(400))
    config = CleaningConfig(markup=True, control=True)
    whole_report = cleaning.CleaningReport()
    whole = cleaning.clean_document("a.txt", text, config, whole_report)
    monkeypatch.setattr(cleaning, "CHUNK", 50)  # many pieces, cut after line ends
    pieces_report = cleaning.CleaningReport()
    assert cleaning.clean_document("a.txt", text, config, pieces_report) == whole
    assert "_so_" not in whole and "\x07" not in whole and "ok_x_y" in whole
    assert pieces_report.counts == whole_report.counts
    assert [(r.line, r.text) for r in pieces_report.examples] == \
        [(r.line, r.text) for r in whole_report.examples]


def test_an_italic_over_a_line_end_is_unmarked_but_not_over_a_blank_line():
    """Issue 31, defect 10: '_Enter the\nKing_' kept both marks."""
    from workbench.core.corpus import cleaning

    text = "_Enter the\nKing_ and ~all\nhis train~.\n\n_not\n\nthis_ one\n"
    report = cleaning.CleaningReport()
    cleaned = cleaning.clean_document("a.txt", text, CleaningConfig(markup=True), report)
    assert cleaned == "Enter the\nKing and all\nhis train.\n\n_not\n\nthis_ one\n"
    assert report.counts["markup"] == 2
