"""The GPT-2 lesson on a classroom machine: without the model folder it says where to put
it and how to get it (no button runs a step); with the folder copied in, its steps open it."""

from __future__ import annotations

from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_traces import finished, snapshot
from workbench.qt.panels.lessons import LessonsPanel

GPT2_LESSON = "21-inside-a-pretrained-transformer"


def test_without_the_folder_the_lesson_says_how_to_get_it(make_panel, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MODELS_DIR", str(tmp_path / "models"))
    panel = make_panel(LessonsPanel)
    panel.choose(GPT2_LESSON)
    note = panel.footer.text()
    assert "hf download gpt2 config.json model.safetensors tokenizer.json --local-dir gpt2" \
        in note
    assert str(tmp_path / "models") in note and "never downloads" in note
    assert not any(button.isEnabled() for button in panel.step_buttons)


def test_with_the_folder_copied_in_its_steps_open_it(qtbot, make_panel, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "models" / "gpt2").mkdir(parents=True)
    (tmp_path / "models" / "gpt2" / "config.json").write_text('{"model_type": "gpt2"}')
    opened = []
    backend = FakeBackend()
    backend.inspection.load_checkpoint_job = lambda path: opened.append(str(path)) or finished(
        snapshot(run_dir=str(path)))
    panel = make_panel(LessonsPanel, backend)
    panel.choose(GPT2_LESSON)
    assert "hf download" not in panel.footer.text()
    assert all(button.isEnabled() for button in panel.step_buttons)
    panel.run_step(0)
    qtbot.waitUntil(lambda: panel.controller.snapshot is not None, timeout=5000)
    assert opened == [str(tmp_path / "models" / "gpt2")]
