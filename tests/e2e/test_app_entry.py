"""The `workbench` entry point as a user runs it: version, panel list, offscreen screenshots."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_workbench(*args: str, tmp_path: Path, timeout: int = 240) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # keep QSettings away from the user's
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "WORKBENCH_RUNS_DIR": str(tmp_path / "runs"),
    }
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )


def test_version(tmp_path):
    from workbench import __version__

    result = run_workbench("--version", tmp_path=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"workbench {__version__}"


def test_list_panels_names_the_corpus_panel(tmp_path):
    result = run_workbench("--list-panels", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert "corpus" in names


def test_unknown_panel_is_refused_with_the_list(tmp_path):
    result = run_workbench(
        "--screenshot", str(tmp_path / "x.png"), "--panel", "nope", "--no-default-corpus",
        tmp_path=tmp_path,
    )
    assert result.returncode == 2
    assert "Unknown panel 'nope'" in result.stderr and "corpus" in result.stderr


def test_a_screenshot_leaves_the_users_settings_alone(tmp_path):
    """Screenshots in presentation mode used to leave the zoom (and their layouts) to the
    user's next start, and to every later screenshot."""
    out = tmp_path / "zoomed.png"
    result = run_workbench("--screenshot", str(out), "--zoom", "1.6", "--perspective", "Data",
                           "--no-default-corpus", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert out.exists()
    written = [p.read_text() for p in (tmp_path / "config").rglob("*") if p.is_file()]
    assert not any("zoom" in text or "perspective" in text for text in written)


@pytest.mark.slow
def test_screenshot_of_window_with_default_corpus(tmp_path):
    out = tmp_path / "window.png"
    result = run_workbench("--screenshot", str(out), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert image.width() >= 800 and image.height() >= 500
    # not a blank image: many distinct colours from text, plots and widgets
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 20


def test_screenshot_of_one_panel(tmp_path):
    out = tmp_path / "corpus.png"
    result = run_workbench("--screenshot", str(out), "--panel", "corpus", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert 0 < image.width() < 1400  # the dock alone, not the whole window
