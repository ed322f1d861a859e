"""The Corpus panel shows which documents are held out, and the user's choice re-splits."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

PLAY = "{name} speaks a line of {name}.\nAnd {name} answers it.\n"


def load_folder(qtbot, window, tmp_path, names=("ariel", "brutus", "cassio", "duncan", "edgar")):
    folder = tmp_path / "plays"
    folder.mkdir()
    for name in names:
        (folder / f"{name}.txt").write_text(PLAY.format(name=name) * 200, encoding="utf-8")
    controller = window.controller
    before = controller.tokens
    with qtbot.waitSignal(controller.corpus_changed, timeout=20_000):
        assert window.panels["corpus"].open_path(str(folder))
    qtbot.waitUntil(lambda: controller.tokens is not before and not controller.jobs.busy,
                    timeout=20_000)
    return folder


def used_for(table) -> dict[str, str]:
    grid = table.table
    return {grid.item(row, 0).text(): grid.cellWidget(row, 3).currentText()
            for row in range(grid.rowCount())}


def test_the_panel_shows_the_held_out_documents_and_the_users_choice_splits(qtbot, window,
                                                                            tmp_path):
    load_folder(qtbot, window, tmp_path)
    view = window.panels["corpus"].tokenizer_view
    table, tokens = view.held_out, window.controller.tokens
    seeded = (tokens.config.validation_documents, tokens.config.test_documents)
    shown = used_for(table)
    assert len(shown) == 5
    assert [n for n, s in shown.items() if s == "validation"] == list(
        tokens.config.validation_documents)
    assert [n for n, s in shown.items() if s == "test"] == list(tokens.config.test_documents)
    assert "drawn from the seed" in table.summary.text()
    assert tokens.config.validation_documents[0] in table.summary.text()
    assert not table.reset.isEnabled()
    # the user holds out another play for testing: the corpus is split again with it
    training = next(n for n, s in shown.items() if s == "training")
    row = list(shown).index(training)
    combo = table.table.cellWidget(row, 3)
    assert isinstance(combo, QComboBox)
    with qtbot.waitSignal(window.controller.tokens_changed, timeout=20_000):
        combo.setCurrentText("test")
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=20_000)
    tokens = window.controller.tokens
    assert training in tokens.config.test_documents
    assert tokens.tokenizer.decode(tokens.test).count(f"{training[:-4]} answers") == 200
    assert training[:-4] not in tokens.tokenizer.decode(tokens.train)
    assert used_for(table)[training] == "test" and "you chose" in table.summary.text()
    # every play held out is refused before anything is split
    for row in range(5):
        if table.table.cellWidget(row, 3).currentText() == "training":
            table.table.cellWidget(row, 3).setCurrentText("validation")
    assert "at least one document for training" in table.summary.text()
    assert window.controller.tokens is tokens
    # back to the seed's choice
    with qtbot.waitSignal(window.controller.tokens_changed, timeout=20_000):
        table.reset.click()
    qtbot.waitUntil(lambda: not window.controller.jobs.busy, timeout=20_000)
    config = window.controller.tokens.config
    assert (config.validation_documents, config.test_documents) == seeded
    assert view.chosen == ((), ()) and "drawn from the seed" in table.summary.text()


def test_a_single_text_shows_its_held_out_stretches(qtbot, window, tmp_path):
    path = tmp_path / "one.txt"
    path.write_text(PLAY.format(name="puck") * 300, encoding="utf-8")
    controller = window.controller
    before = controller.tokens
    with qtbot.waitSignal(controller.corpus_changed, timeout=20_000):
        assert window.panels["corpus"].open_path(str(path))
    qtbot.waitUntil(lambda: controller.tokens is not before and not controller.jobs.busy,
                    timeout=20_000)
    table = window.panels["corpus"].tokenizer_view.held_out
    grid = table.table
    assert [grid.item(r, 3).text() for r in range(grid.rowCount())] == [
        "training", "validation", "test"]  # a short text: the tail cut
    assert grid.cellWidget(0, 3) is None  # stretches are not chosen by hand
    assert "One text" in table.summary.text()
