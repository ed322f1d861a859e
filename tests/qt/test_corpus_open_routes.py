"""File ▸ Open corpus / Open folder, recent files and the Corpus panel's own Open buttons all
load with the panel's Filter and Encoding: one way in, the same corpus whichever route."""

from __future__ import annotations

from unittest import mock

import pytest

TEXT = "Café crème, déjà vu, naïve.\n" * 30
DIALOGS = "PySide6.QtWidgets.QFileDialog"  # the class itself: every module that asks sees the stub


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "notes.txt").write_text("Plain notes, ASCII only.\n" * 30)
    (tmp_path / "play.sonnet").write_bytes(TEXT.encode("cp1252"))
    return tmp_path


def menu_action(window, text: str):
    return next(a for a in window.menuBar().findChildren(type(window.view_menu))
                for a in a.actions() if a.text() == text)


def choose(window, filter_text: str, encoding: str) -> None:
    panel = window.panels["corpus"]
    panel.glob.setText(filter_text)
    panel.encoding.setCurrentText(encoding)


def loaded(qtbot, window, start) -> object:
    with qtbot.waitSignal(window.controller.corpus_changed, timeout=20_000):
        start()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=20_000)
    return window.controller.corpus


def test_file_menu_folder_uses_the_panels_filter_and_encoding(qtbot, window, folder):
    choose(window, "*.sonnet", "cp1252")
    with mock.patch(f"{DIALOGS}.getExistingDirectory", return_value=str(folder)):
        corpus = loaded(qtbot, window, menu_action(window, "Open corpus &folder…").trigger)
    assert corpus.encodings == {"play.sonnet": "cp1252"}  # notes.txt filtered out
    assert "Café crème" in corpus.text and "\ufffd" not in corpus.text


def test_file_menu_and_panel_button_load_a_file_the_same_way(qtbot, window, folder):
    path = str(folder / "play.sonnet")
    choose(window, "*.txt", "cp1252")
    with mock.patch(f"{DIALOGS}.getOpenFileName", return_value=(path, "")):
        from_menu = loaded(qtbot, window, menu_action(window, "&Open corpus file…").trigger)
        from_panel = loaded(qtbot, window, window.panels["corpus"].choose_file)
    assert from_menu.encodings == from_panel.encodings == {"play.sonnet": "cp1252"}
    assert from_menu.text == from_panel.text
    assert "Café crème" in from_menu.text
    # a recent file reopens with the settings shown now
    choose(window, "*.txt", "latin-1")
    again = loaded(qtbot, window, lambda: window.open_corpus(window.recent.paths()[0]))
    assert again.encodings == {"play.sonnet": "iso8859-1"}  # latin-1 by its codec name
