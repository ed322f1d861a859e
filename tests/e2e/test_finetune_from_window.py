"""Fine-tuning a GPT-2 folder from the window (issue 34 item 3): the Task form's "Start from"
names the folder, Train reads the corpus again with the folder's tokenizer, the run is the
folder's transformer, and its snapshots open in the inspectors with GPT-2's tokens."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from training_fixtures import TEXT  # noqa: E402

from tests.core.pretrained_folders import make_gpt2_folder  # noqa: E402
from workbench.app.backend import Backend  # noqa: E402
from workbench.app.window import build_window  # noqa: E402
from workbench.core.config.tasks import LanguageModelTaskConfig  # noqa: E402
from workbench.core.config.training import TrainingConfig  # noqa: E402
from workbench.core.events import JobFailed  # noqa: E402
from workbench.core.training.checkpoints import load_checkpoint  # noqa: E402


@pytest.mark.slow
def test_fine_tune_a_gpt2_folder_from_the_task_form(qtbot, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    folder = make_gpt2_folder(tmp_path / "tiny-gpt2")
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    window.show()
    controller = window.controller
    (tmp_path / "tiny.txt").write_text(TEXT * 2, encoding="utf-8")
    with qtbot.waitSignal(controller.tokens_changed, timeout=60_000):
        window.open_corpus(str(tmp_path / "tiny.txt"))  # tokenized by characters
    qtbot.waitUntil(lambda: not controller.jobs.busy, timeout=30_000)
    picker = window.panels["architecture"].task_picker
    assert picker.start_from.isVisibleTo(picker)  # the language model offers the button
    picker.use_value("start_from", str(folder))
    assert controller.task_config == LanguageModelTaskConfig(start_from=str(folder))
    panel = window.panels["training"]
    window.show_panel("training")
    panel.controls.form.set_config(TrainingConfig(
        max_steps=20, batch_size=4, seq_len=32, eval_every=10, eval_batches=2, log_every=5,
        sample_every=10, sample_length=10, warmup_steps=2, lr=3e-3, checkpoint_every=10,
        threads=1))
    failures, notices, snapshots = [], [], []
    controller.job_event.connect(lambda e: failures.append(e) if isinstance(e, JobFailed)
                                 else None)
    controller.notice.connect(notices.append)
    controller.snapshot_changed.connect(snapshots.append)
    panel.controls.start.click()
    qtbot.waitUntil(lambda: bool(failures) or not controller.jobs.busy, timeout=60_000)
    assert not failures
    assert any("Fine-tuning tiny-gpt2" in n for n in notices)
    run_dir = next((tmp_path / "runs").iterdir())
    saved = load_checkpoint(run_dir / "checkpoints" / "latest.json")
    assert saved.meta["model_config"]["arch"] == "transformer"
    assert saved.meta["tokenizer"]["kind"] == "pretrained"
    assert snapshots and snapshots[-1].tokenizer["kind"] == "pretrained"
    window.show_panel("attention")
    attention = window.panels["attention"]
    attention.probe_bar.text.setText("the cat sat")
    attention.probe_bar.probe()

    def probed() -> list[str]:  # the new probe's pieces (an earlier automatic probe's first)
        trace = attention.trace
        return [t.replace("·", " ") for t in trace.token_text] if trace is not None else []

    qtbot.waitUntil(lambda: "".join(probed()) == "the cat sat", timeout=30_000)
    assert " cat" in probed()  # GPT-2's pieces, with the leading space
