"""The generation console's text view: tokens appended batch by batch, each one pointable."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt

from tests.qt.token_view import character_point, token_point
from workbench.qt.widgets.token_stream import TokenStreamView


def tokens(texts, probability=0.5):
    return [SimpleNamespace(text=t, probability=probability) for t in texts]


@pytest.fixture
def view(qtbot):
    widget = TokenStreamView()
    widget.resize(400, 200)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_batches_append_the_exact_text_and_the_mouse_finds_each_token(view, qtbot):
    view.start_stream("KING:\n")
    view.append_tokens(tokens(["To", "  be"]))
    view.append_tokens(tokens([",\r\n", "or", "", " n😀t"], probability=0.9))
    view.append_tokens(tokens(["!"]))
    # spaces and line ends as written; a token without text is marked
    assert view.toPlainText() == "KING:\nTo  be,\nor⏎ n😀t!"
    hovered, clicked = [], []
    view.hovered.connect(hovered.append)
    view.clicked.connect(clicked.append)
    # document positions: "KING:\n" 0-5, "To" 6-7, "  be" 8-11, ",\n" 12-13, "or" 14-15,
    # "⏎" 16, " n😀t" 17-21 (the emoji takes two), "!" 22
    for position, index in ((6, 0), (10, 1), (14, 3), (16, 4), (18, 5), (21, 5), (22, 6)):
        point = character_point(view, position)
        qtbot.mouseMove(view.viewport(), point)
        assert view.token_at(point) == index, position
    assert view.token_at(character_point(view, 1)) == -1  # the prompt is no token
    assert hovered == [0, 1, 3, 4, 5, 6]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=token_point(view, 1))
    assert clicked == [1]


def test_the_view_follows_the_end_unless_the_reader_scrolled_up(view, qtbot):
    view.start_stream("")
    bar = view.verticalScrollBar()
    for _ in range(100):  # a long text: Qt lays it out a piece at a time, in the event loop
        view.append_tokens(tokens(["a line of text\n"] * 50))
        qtbot.wait(1)
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    bar.setValue(10)
    view.append_tokens(tokens(["more\n"] * 20))
    qtbot.wait(50)
    assert bar.value() == 10
    bar.setValue(bar.maximum())  # back at the end: it follows again
    view.append_tokens(tokens(["more\n"] * 20))
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() and view.toPlainText().endswith(
        "more\n" * 40))
