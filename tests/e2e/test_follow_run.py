"""End to end: the real window follows a run that a separate `workbench train` process writes,
from an empty folder to the finished run, and shows what that process wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from training_fixtures import write_tiny_recipe  # noqa: E402

from workbench.app.window import build_window  # noqa: E402
from workbench.core.events import CheckpointLoaded, StepLogged  # noqa: E402
from workbench.core.training.runs import read_run  # noqa: E402


@pytest.mark.slow
def test_window_follows_a_run_written_by_another_process(qtbot, settings, tmp_path,
                                                           monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    recipe = write_tiny_recipe(tmp_path, max_steps=60)
    out = tmp_path / "server-run"
    out.mkdir()  # as a sync tool would make it, before the first line arrives
    window = build_window(settings)
    qtbot.addWidget(window)
    window.show()
    controller = window.controller
    loaded = []
    controller.follow_event.connect(
        lambda _key, e: loaded.append(e.step) if isinstance(e, CheckpointLoaded) else None)
    assert controller.follow_run(str(out))
    trainer = subprocess.Popen([sys.executable, "-m", "workbench", "train", str(recipe),
                                "--out", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: trainer.poll() is not None, timeout=180_000)
        _, err = trainer.communicate()
        assert trainer.returncode == 0, err
        panel = window.panels["training"]
        written = [e.step for e in read_run(out).events if isinstance(e, StepLogged)]
        qtbot.waitUntil(lambda: 60 in loaded, timeout=30_000)
        series = panel.series[str(out)]
        qtbot.waitUntil(lambda: list(series.train["step"]) == written, timeout=10_000)
        assert series.val.size == 6 and series.samples
        assert controller.snapshot.step == 60
        assert "(finished)" in panel.follow_bar.label.text()
        titles = [plot.titleLabel.text for plot in panel.curves.plots.values()]
        assert any("per character" in title for title in titles)  # a char-level run
    finally:
        if trainer.poll() is None:
            trainer.kill()
            trainer.wait()
        window.close()  # stops the follow's thread
