"""A gensim native file (a pickle) is opened only after an explicit 'I trust this file'
answer; refusing is the default, and a refusal starts nothing."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.app.backend import Backend
from workbench.app.window import build_window, settle
from workbench.qt.widgets import trust_dialog


@pytest.fixture
def window(qtbot, settings):
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    yield window
    window.controller.shutdown()


@pytest.fixture
def gensim_file(tmp_path):
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(3)
    keyed.add_vectors(["king", "queen"], np.eye(2, 3, dtype=np.float32))
    keyed.save(str(tmp_path / "v.kv"))
    return tmp_path / "v.kv"


def test_the_dialog_says_it_can_run_code_and_refuses_by_default(qtbot, tmp_path):
    parent = QWidget()
    qtbot.addWidget(parent)
    box = trust_dialog.trust_box(parent, str(tmp_path / "v.kv"))
    assert "runs whatever code" in box.text() and "v.kv" in box.text()
    assert box.defaultButton().text() == "Do not open"
    assert box.escapeButton() is box.defaultButton()


def test_refusing_opens_nothing(window, gensim_file, monkeypatch):
    monkeypatch.setattr(trust_dialog, "ask_trust", lambda parent, path: False)
    panel = window.panels["embeddings"]
    assert not panel.import_vectors(str(gensim_file), "gensim")
    assert not window.controller.jobs.busy and panel.vectors is None
    assert "was not opened (a pickle can run code)" in panel.status.text()


def test_trusting_opens_it(window, gensim_file, monkeypatch):
    asked = []
    monkeypatch.setattr(trust_dialog, "ask_trust", lambda parent, path: asked.append(path)
                        or True)
    panel = window.panels["embeddings"]
    assert panel.import_vectors(str(gensim_file), "gensim")
    assert settle(window, 30)
    assert asked == [str(gensim_file)] and panel.vectors.words == ["king", "queen"]


def test_pressing_enter_in_the_real_dialog_refuses(qtbot, monkeypatch, tmp_path):
    from PySide6.QtCore import QTimer

    parent = QWidget()
    qtbot.addWidget(parent)

    def press_default():
        box = next(w for w in parent.findChildren(QMessageBox) if w.isVisible())
        box.defaultButton().click()

    QTimer.singleShot(200, press_default)
    assert trust_dialog.ask_trust(parent, str(tmp_path / "v.kv")) is False
