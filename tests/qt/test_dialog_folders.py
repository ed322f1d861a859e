"""File dialogs open at the shipped recipes, models and corpora, or the folder last chosen
(issue 31, defect 9: they opened in the working directory)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.resources import resource_path
from workbench.qt.widgets import checkpoint_open, corpus_open, dialog_folders


def test_dialogs_start_at_the_shipped_folders_then_the_last_one(monkeypatch, tmp_path):
    monkeypatch.setattr(dialog_folders, "_last", {})
    asked = []
    chosen = tmp_path / "mine" / "best.json"
    chosen.parent.mkdir()

    def fake_open(parent, caption, folder, *rest):
        asked.append(folder)
        return str(chosen), ""

    monkeypatch.setattr(checkpoint_open.QFileDialog, "getOpenFileName", fake_open)
    assert checkpoint_open.ask_checkpoint_path(None) == str(chosen)
    assert corpus_open.ask_corpus_file(None) == str(chosen)
    assert checkpoint_open.ask_checkpoint_path(None) == str(chosen)
    assert Path(asked[0]) == resource_path("models")  # the old code passed "" (the cwd)
    assert Path(asked[1]) == resource_path("corpora")
    assert asked[2] == str(chosen.parent)  # the folder the user went to last time
    assert Path(dialog_folders.start_folder("recipe")) == resource_path("recipes")
