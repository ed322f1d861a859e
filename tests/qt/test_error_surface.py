"""One error surface: every user-facing failure in the window is a written message saying what
happened and what to do; exception type names and tracebacks only behind Details."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from PySide6.QtWidgets import QMessageBox

from workbench.app.backend import Backend
from workbench.app.window import build_window, settle
from workbench.core.config.models import LstmConfig
from workbench.core.corpus.tokenizers import CharTokenizer
from workbench.core.events import Progress
from workbench.core.jobs import JobSpec
from workbench.core.models import build_model
from workbench.core.snapshot.rebuild import snapshot_of

TYPE_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b|Traceback|Errno")


@pytest.fixture
def window(qtbot, settings):
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    window.show()
    yield window
    window.controller.shutdown()


def _boxes(window):
    return [b for b in window.findChildren(QMessageBox) if b.isVisible()]


def _failing(error):
    def job(control):
        yield Progress(0, 1)
        raise error

    return JobSpec("Saving the run", job)


@pytest.mark.parametrize("error", [
    OSError(28, "No space left on device", "/runs/a/checkpoints/latest.json"),
    OSError(30, "Read-only file system", "/media/cd/run"),
    PermissionError(13, "Permission denied", "/root/run"),
    MemoryError(),
    KeyError("step"),
    RuntimeError("probability tensor contains either inf, nan or element < 0"),
])
def test_a_failing_job_is_a_written_message_with_the_type_behind_details(qtbot, window, error):
    with qtbot.waitSignal(window.controller.error, timeout=10_000):
        window.controller.run_job(_failing(error))
    qtbot.waitUntil(lambda: bool(_boxes(window)), timeout=10_000)
    box = _boxes(window)[-1]
    assert not TYPE_NAME.search(box.text()), box.text()
    assert "while saving the run" in box.text()
    assert type(error).__name__ in box.detailedText()  # the traceback, behind Details


def test_generating_from_nan_weights_says_why_and_the_console_recovers(qtbot, window):
    tokenizer = CharTokenizer.train("to be or not to be")
    config = LstmConfig(hidden_size=8, embedding_size=8, vocab_size=tokenizer.vocab_size)
    model = build_model(config)
    with torch.no_grad():
        model.out.weight.fill_(float("nan")) if hasattr(model, "out") else [
            p.fill_(float("nan")) for p in model.parameters()]
    snapshot = snapshot_of(model, tokenizer.to_dict(), 5, {}, "lstm")
    assert any(np.isnan(w).any() for w in snapshot.weights.values())
    console = window.panels["generate"]
    window.controller.set_snapshot(snapshot)
    assert settle(window, 60)
    console.prompt.setPlainText("to be")
    with qtbot.waitSignal(window.controller.error, timeout=30_000) as reported:
        assert console.generate()
    assert "not numbers (NaN or infinity)" in reported.args[0]
    assert not TYPE_NAME.search(reported.args[0])
    qtbot.waitUntil(lambda: console.generate_button.isEnabled(), timeout=10_000)
    assert not console.stop_button.isEnabled()  # not stuck generating
