"""End to end in the real window: load a corpus (it tokenizes itself), press Train, watch the
curves and samples fill, get a snapshot, stop, resume from the run list, open the run folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from training_fixtures import TEXT  # noqa: E402

from workbench.app.backend import Backend  # noqa: E402
from workbench.app.window import build_window, settle  # noqa: E402
from workbench.core.config.training import TrainingConfig  # noqa: E402
from workbench.core.events import JobFailed, StepLogged  # noqa: E402
from workbench.core.training.runs import read_run  # noqa: E402


@pytest.mark.slow
def test_train_stop_resume_and_reopen_from_the_window(qtbot, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    backend = Backend()
    window = build_window(settings, backend)
    qtbot.addWidget(window)
    window.show()
    controller = window.controller
    (tmp_path / "tiny.txt").write_text(TEXT * 4, encoding="utf-8")
    with qtbot.waitSignal(controller.tokens_changed, timeout=60_000):
        window.open_corpus(str(tmp_path / "tiny.txt"))
    qtbot.waitUntil(lambda: not controller.jobs.busy, timeout=30_000)
    from workbench.core.config.models import GruConfig

    controller.set_model_config(GruConfig(embedding_size=16, hidden_size=32))
    panel = window.panels["training"]
    window.show_panel("training")
    panel.controls.form.set_config(TrainingConfig(
        max_steps=400, batch_size=8, seq_len=32, eval_every=20, eval_batches=4, log_every=5,
        sample_every=20, sample_length=40, warmup_steps=5, lr=5e-3, checkpoint_every=50,
        threads=1))
    snapshots = []
    controller.snapshot_changed.connect(snapshots.append)
    failures = []
    controller.job_event.connect(lambda e: failures.append(e) if isinstance(e, JobFailed)
                                 else None)
    panel.controls.start.click()
    qtbot.waitUntil(lambda: bool(failures) or "step 40" in panel.samples.toPlainText(),
                    timeout=60_000)
    assert not failures and snapshots
    panel.controls.stop.click()
    qtbot.waitUntil(lambda: not controller.jobs.busy, timeout=30_000)
    run_dir = next((tmp_path / "runs").iterdir())
    series = panel.series[str(run_dir)]
    stopped_at = int(series.train["step"][-1])
    assert stopped_at >= 40 and series.val.size >= 2
    assert series.train["loss"][-1] < series.train["loss"][0]
    assert "step 20" in panel.samples.toPlainText()
    assert (run_dir / "checkpoints" / "latest.json").is_file()
    assert panel.controls.start.isEnabled()

    # resume from the run list: the curve continues from the checkpoint, without a gap
    steps_before = len(snapshots)
    panel.run_list.resume_requested.emit(str(run_dir))
    qtbot.waitUntil(lambda: len(snapshots) > steps_before + 1, timeout=60_000)
    panel.controls.stop.click()
    qtbot.waitUntil(lambda: not controller.jobs.busy, timeout=30_000)
    assert not failures
    steps = list(panel.series[str(run_dir)].train["step"])
    assert steps == list(range(5, int(steps[-1]) + 1, 5)) and steps[-1] > stopped_at
    logged = [e.step for e in read_run(run_dir).events if isinstance(e, StepLogged)]
    assert logged == steps

    # reopening the folder in a fresh panel shows the same curve
    panel.series.pop(str(run_dir))
    assert panel.open_run(str(run_dir))  # waits for the inspectors' probes, if running
    qtbot.waitUntil(lambda: str(run_dir) in panel.series, timeout=30_000)
    assert list(panel.series[str(run_dir)].train["step"]) == steps

    # its best checkpoint goes to the inspectors as a snapshot
    settle(window)
    with qtbot.waitSignal(controller.snapshot_changed, timeout=30_000) as opened:
        assert panel.inspect_checkpoint(str(run_dir), "best")
    assert opened.args[0].weights and opened.args[0].step % 20 == 0
    settle(window)  # let the inspectors' probes of the last snapshot finish before closing
    window.close()
