"""The Corpus panel in the real window: loading, statistics, bad input, search, tokenizing."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from workbench.app.window import settle
from workbench.core.config.tokenizer import TokenizerConfig
from workbench.qt.panels.corpus.text_preview import WINDOW_CHARS, TextPreview

GOOD = "The cat sat on the mat.\nThe dog sat on the log.\n" * 50


LOAD_MS = 180_000  # a 20 MB corpus took over 20 s to load and tokenize on a slow 2-core machine


def load(qtbot, window, path, **options) -> None:
    """Open and wait until loading and the automatic tokenizing are both over."""
    controller = window.controller
    before = controller.tokens
    with qtbot.waitSignal(controller.corpus_changed, timeout=LOAD_MS):
        assert window.panels["corpus"].open_path(str(path)) if not options else \
            window.open_corpus(str(path), **options)
    qtbot.waitUntil(lambda: controller.tokens is not before and not controller.jobs.busy,
                    timeout=LOAD_MS)


def error_boxes(window) -> list[str]:
    return [box.text() for box in window.findChildren(QMessageBox) if box.isVisible()]


def test_loading_shows_statistics_and_tokenizes_for_training(qtbot, window, tmp_path):
    path = tmp_path / "pets.txt"
    path.write_text(GOOD)
    load(qtbot, window, path)
    panel = window.panels["corpus"]
    assert panel.stats_view.values["words"].text() == "600"
    assert panel.stats_view.values["lines"].text() == "100"
    assert panel.stats_view.values["word_vocab"].text() == "7"  # the cat sat on mat dog log
    assert panel.top_words.table.item(0, 1).text() == "the"
    assert panel.characters.table.rowCount() == panel.corpus.stats.char_vocab
    assert not panel.credit.isVisible() and not panel.problems.isVisible()
    tokens = window.controller.tokens
    assert tokens.tokenizer.kind == "char" and len(tokens.ids) == len(GOOD)
    assert tokens.split_sizes()["val"] == round(len(GOOD) * 0.1)
    assert "vocabulary" in panel.tokenizer_view.result.text()
    assert window.corpus_label.text() == "pets.txt"


BAD_INPUTS = {
    "binary": (lambda d: (d / "blob.txt").write_bytes(b"\x00\x01\x02" * 100) and d / "blob.txt",
               "blob.txt: looks like a binary file"),
    "empty": (lambda d: (d / "none.txt").write_text("") or d / "none.txt",
              "none.txt: is empty. Choose a file that contains text."),
    "missing": (lambda d: d / "gone.txt", "gone.txt does not exist"),
    "no text files": (lambda d: (d / "sub").mkdir() or (d / "sub" / "a.csv").write_text("x")
                      and d / "sub", "has no files matching"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_shows_a_message_and_a_good_file_loads_afterwards(qtbot, window, tmp_path,
                                                                     case):
    make, expected = BAD_INPUTS[case]
    bad = make(tmp_path)
    with qtbot.waitSignal(window.controller.error, timeout=10_000) as blocker:
        window.panels["corpus"].open_path(str(bad))
    assert expected in blocker.args[0]
    qtbot.waitUntil(lambda: any(expected in t for t in error_boxes(window)), timeout=5000)
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=5000)
    assert window.controller.corpus is None
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    load(qtbot, window, good)
    assert window.controller.corpus.name == "good.txt"


def test_folder_with_bad_files_lists_them_and_encoding_warnings(qtbot, window, tmp_path):
    (tmp_path / "a.txt").write_text(GOOD)
    (tmp_path / "b.txt").write_bytes(("Café crème, déjà vu, naïve.\n" * 30).encode("latin-1"))
    (tmp_path / "c.txt").write_bytes(b"\x00" * 50)
    load(qtbot, window, tmp_path)
    panel = window.panels["corpus"]
    lines = [panel.problems.item(i).text() for i in range(panel.problems.count())]
    assert panel.problems.isVisible()
    assert any("b.txt is not UTF-8" in line for line in lines)
    assert any(line.startswith("Skipped c.txt: looks like a binary file") for line in lines)
    assert panel.stats_view.values["documents"].text() == "2"


def test_reload_applies_the_chosen_encoding(qtbot, window, tmp_path):
    path = tmp_path / "cafe.txt"
    path.write_bytes(("Café crème, déjà vu, naïve.\n" * 30).encode("cp1252"))
    load(qtbot, window, path)
    panel = window.panels["corpus"]
    assert "cafe.txt is not UTF-8" in panel.problems.item(0).text()
    panel.encoding.setCurrentText("cp1252")
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=10_000):
        panel.reload()
    assert window.controller.corpus.encodings == {"cafe.txt": "cp1252"}
    assert "chosen in the Encoding box" in panel.problems.item(0).text()
    assert "Café crème" in panel.preview.view.toPlainText()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=10_000)


def test_the_shipped_corpus_credits_its_source(qtbot, window, tmp_path):
    from workbench.core.resources import default_corpus_path

    load(qtbot, window, default_corpus_path())
    panel = window.panels["corpus"]
    assert panel.credit.isVisible()
    assert "Open Shakespeare / Open Knowledge Foundation" in panel.credit.text()
    from workbench.core.resources import resource_path

    load(qtbot, window, resource_path("corpora", "names"))  # each credits its own source
    assert "1990 United States Census" in panel.credit.text() and panel.credit.isVisible()
    assert panel.stats_view.values["documents"].text() == "10"
    path = tmp_path / "mine.txt"
    path.write_text("My own words.\n" * 30)
    load(qtbot, window, path)
    assert not panel.credit.isVisible()  # the user's own text: no credit line


def test_find_reaches_text_beyond_the_shown_window_and_wraps(qtbot, window, tmp_path):
    filler = "All work and no play.\n" * (2 * WINDOW_CHARS // 22)
    path = tmp_path / "long.txt"
    path.write_text("Needle at the start.\n" + filler + "A second needle.\n")
    load(qtbot, window, path)
    preview = window.panels["corpus"].preview
    assert len(preview.view.toPlainText()) == WINDOW_CHARS
    preview.find_box.setText("NEEDLE")
    assert preview.find_next()
    assert preview.view.textCursor().selectedText() == "Needle"
    assert preview.find_next()  # the second one lies outside the first window
    assert preview.view.textCursor().selectedText() == "needle" and preview.start > 0
    assert preview.find_next() and "wrapped" in preview.status.text()
    assert preview.find_previous() and preview.view.textCursor().selectedText() == "needle"
    preview.find_box.setText("absent words")
    assert not preview.find_next()  # a miss may take several slices on a loaded machine
    qtbot.waitUntil(lambda: "No match" in preview.status.text(), timeout=30_000)


def test_a_miss_in_a_large_corpus_is_searched_in_slices_between_events(qtbot):
    preview = TextPreview()
    qtbot.addWidget(preview)
    text = "All work and no play makes Jack a dull boy.\n" * 1_200_000  # 52 MB
    preview.set_corpus(text + "The needle.\n", [("big", 0)])
    preview.find_box.setText("absent words")
    assert not preview.find_next()  # returned after one slice, not after all 52 MB
    assert "Searching for 'absent words'" in preview.status.text()
    qtbot.waitUntil(lambda: "No match" in preview.status.text(), timeout=30_000)
    preview.find_box.setText("NEEDLE")
    preview.find_next()
    qtbot.waitUntil(lambda: "found" in preview.status.text(), timeout=30_000)
    assert preview.view.textCursor().selectedText() == "needle"
    assert preview.start > len(text) - WINDOW_CHARS  # the window moved to the end


def test_tokenizer_settings_retokenize_with_words(qtbot, window, tmp_path):
    path = tmp_path / "pets.txt"
    path.write_text(GOOD)
    load(qtbot, window, path)
    view = window.panels["corpus"].tokenizer_view
    view.set_config(TokenizerConfig(kind="word", lowercase=True, val_fraction=0.2,
                                    test_fraction=0.0))
    with qtbot.waitSignal(window.controller.tokens_changed, timeout=10_000):
        view.button.click()
    tokens = window.controller.tokens
    assert tokens.tokenizer.kind == "word"
    assert tokens.vocab_size == 4 + 9  # specials + the cat sat on mat dog log . \n
    assert tokens.split_sizes()["test"] == 0
    table = view.vocabulary
    assert table.rowCount() == 13
    assert [table.item(i, 1).text() for i in (0, 4)] == ["<pad>", "the"]
    assert table.item(4, 2).text() == "200"  # "the" four times a line pair, 50 pairs
    assert {"↵", "."} <= {table.item(i, 1).text() for i in range(13)}  # line break drawn
    view.set_config(TokenizerConfig(val_fraction=0.5, test_fraction=0.45))
    assert not view.button.isEnabled() and "at least 10%" in view.split_note.text()


def test_a_second_tokenize_request_replaces_the_running_one_without_an_error(qtbot, window,
                                                                            tmp_path):
    """A lesson step (or a click) asking for other settings while the corpus is still being
    tokenized gets its settings, not a "still running" error and the old tokens."""
    path = tmp_path / "pets.txt"
    path.write_text(GOOD)
    load(qtbot, window, path)
    errors = []
    window.controller.error.connect(lambda message, _detail: errors.append(message))
    panel, controller = window.panels["corpus"], window.controller
    assert panel.tokenize(TokenizerConfig(kind="char"))
    assert controller.jobs.busy  # still running: its result waits for the event loop
    assert panel.tokenize(TokenizerConfig(kind="word", lowercase=True))
    qtbot.waitUntil(lambda: not controller.jobs.busy and controller.tokens.tokenizer.kind
                    == "word", timeout=30_000)
    assert errors == []
    assert "vocabulary" in panel.tokenizer_view.result.text()


def test_dropping_a_file_on_the_panel_loads_it(qtbot, window, tmp_path):
    path = tmp_path / "dropped.txt"
    path.write_text(GOOD)
    panel = window.panels["corpus"]
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=10_000):
        panel.dropEvent(event)
    assert window.controller.corpus.name == "dropped.txt"
    assert str(path) in window.recent.paths()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=10_000)


def _max_stall_while_loading(qtbot, window, path) -> tuple[float, int]:
    ticks: list[float] = []
    probe = QTimer()
    probe.setInterval(10)
    probe.timeout.connect(lambda: ticks.append(time.perf_counter()))
    probe.start()
    load(qtbot, window, path)
    probe.stop()
    return max(b - a for a, b in zip(ticks, ticks[1:], strict=False)), len(ticks)


def test_a_20_mb_corpus_loads_while_the_window_keeps_responding(qtbot, window, tmp_path):
    line = "Friends, Romans, countrymen, lend me your ears; I come to bury Caesar.\n"
    path = tmp_path / "big.txt"
    path.write_text(line * (20_000_000 // len(line)))
    settle(window)  # the window's first layout and paint are start-up, not loading
    stall, ticks = _max_stall_while_loading(qtbot, window, path)
    if stall >= 0.5:  # a busy shared machine can stall any process once: measure again
        stall, ticks = _max_stall_while_loading(qtbot, window, path)
    print(f"20 MB: {ticks} ticks, max stall {stall * 1000:.0f} ms")
    assert ticks > 20
    # The GUI thread never waits long, even while 20 MB is read, counted and tokenized; a
    # single call over the whole text (a Counter, a regex, a join of the ids) takes seconds.
    assert stall < 0.5


GUTENBERG = ("The Project Gutenberg eBook of Macbeth\n\n"
             "*** START OF THE PROJECT GUTENBERG EBOOK MACBETH ***\n"
             "MACBETH\nFirst Witch. When shall we _three_ meet again?\n" * 1
             + "Witch. In thunder, lightning, or in rain?\n" * 40
             + "*** END OF THE PROJECT GUTENBERG EBOOK MACBETH ***\nThe licence.\n\x1a")


def test_a_gutenberg_text_is_offered_cleaning_and_the_cleaning_is_kept(qtbot, window,
                                                                       tmp_path):
    path = tmp_path / "macbeth.txt"
    path.write_text(GUTENBERG, encoding="utf-8")
    load(qtbot, window, path)
    panel = window.panels["corpus"]
    bar = panel.cleaning_bar
    assert bar.isVisible() and bar.clean_button.isVisible()
    offer = bar.message.text()
    assert "Project Gutenberg header and footer: 2 in 1 file" in offer
    assert "_italic_ and ~bold~ marks: 1" in offer and "control characters: 1" in offer
    assert "START OF THE PROJECT GUTENBERG" in bar.listing()  # what would go, shown first
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=20_000):
        bar.clean_button.click()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=20_000)
    text = window.controller.corpus.text
    assert text.startswith("MACBETH\n") and "Gutenberg" not in text and "\x1a" not in text
    assert "we three meet" in text
    assert bar.message.text().startswith("<b>Cleaned</b>") and not bar.clean_button.isVisible()
    assert "macbeth.txt, line 1 (Project Gutenberg header and footer" in bar.listing()
    options = window.controller.corpus_options["cleaning"]
    assert options.gutenberg and options.markup and options.control  # the next load too
    recipe = window.controller.backend.training.recipe_of(
        window.controller.corpus, window.controller.tokens,
        window.controller.model_config, window.panels["training"].controls.form.config())
    assert recipe.cleaning == options  # the run's recipe records how its text was cleaned


def test_an_exclude_pattern_from_the_settings_reloads_without_those_lines(qtbot, window,
                                                                          tmp_path):
    path = tmp_path / "play.txt"
    path.write_text("[Enter Romeo.]\nRomeo. Hello.\n[Exit.]\n" * 30, encoding="utf-8")
    load(qtbot, window, path)
    bar = window.panels["corpus"].cleaning_bar
    assert not bar.isVisible()  # nothing to offer in a clean text
    bar.form.editors["exclude"].setText(r"^\[.*\]$")
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=20_000):
        bar._apply_form()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=20_000)
    assert window.controller.corpus.text.strip().splitlines()[:2] == ["Romeo. Hello."] * 2
    assert "matches of the exclude pattern: 60 in 1 file" in bar.message.text()
