"""File ▸ Export model as Hugging Face folder, with the real backend: an opened GPT-2 folder is
written again as one (a notice names it); a model no Hugging Face family holds (an LSTM) is
refused saying which families the export writes, and no folder is made."""

from __future__ import annotations

from workbench.app.backend import Backend
from workbench.app.window import build_window
from workbench.core.resources import resource_path


def test_export_a_gpt2_folder_and_refuse_a_char_lstm(qtbot, settings, tmp_path):
    from tests.core.pretrained_folders import make_gpt2_folder

    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    controller = window.controller
    notices, errors = [], []
    controller.notice.connect(notices.append)
    controller.error.connect(lambda message, _detail: errors.append(message))
    window.export_model(str(tmp_path / "none"))
    assert errors and "No model to export" in errors[-1]
    window.open_model(str(make_gpt2_folder(tmp_path / "tiny-gpt2")))
    qtbot.waitUntil(lambda: controller.snapshot is not None, timeout=30_000)
    window.export_model(str(tmp_path / "again"))
    qtbot.waitUntil(lambda: bool(notices), timeout=30_000)
    assert (tmp_path / "again" / "model.safetensors").is_file()
    assert f"Written {tmp_path / 'again'}" in notices[-1]
    window.open_model(str(resource_path("models", "char-lstm")))
    qtbot.waitUntil(lambda: controller.snapshot.arch == "lstm", timeout=30_000)
    window.export_model(str(tmp_path / "lstm"))
    qtbot.waitUntil(lambda: "cannot be written as a Hugging Face folder" in errors[-1],
                    timeout=30_000)
    assert "it is LSTM" in errors[-1] and "as GPT-2 or Llama" in errors[-1]
    assert not (tmp_path / "lstm").exists()
    controller.shutdown()
