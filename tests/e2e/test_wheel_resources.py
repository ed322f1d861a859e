"""An installed wheel carries the default corpora and finds them (as `workbench._resources`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_ships_the_corpora_and_the_app_finds_them(tmp_path):
    source = tmp_path / "source"  # build a copy: setuptools writes build/ beside the sources
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("workbench", "resources"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    small = [n for n in names if n.startswith("workbench/_resources/corpora/shakespeare-small/")]
    assert len(small) == 8
    assert "workbench/_resources/corpora/PROVENANCE.md" in names
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    probe = ("import workbench; from workbench.core.resources import default_corpus_path as d; "
             "print(workbench.__file__); print(d())")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=60)
    assert found.returncode == 0, found.stderr
    module, corpus = found.stdout.split()
    assert module.startswith(str(tmp_path / "site"))
    assert Path(corpus) == tmp_path / "site/workbench/_resources/corpora/shakespeare-small"
