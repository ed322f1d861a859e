"""The rules of the three rooms (DESIGN.md section 1), checked with import-linter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    return subprocess.run(
        [exe, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300, env=env
    )


def test_room_contracts_hold():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("planted", "source", "expected"), [
    # core imports no Qt
    ("workbench/core/planted.py", "import PySide6\n", "workbench.core.planted -> PySide6"),
    # the Qt room's contract is an allow-list: a torch-free core module not on it is refused
    ("workbench/qt/planted.py", "from workbench.core import cpu_threads\n",
     "workbench.qt.planted -> workbench.core.cpu_threads"),
    # the core's layers: a model may not reach up to the training loop
    ("workbench/core/models/planted.py", "from workbench.core.training_loop import trainer\n",
     "workbench.core.models.planted -> workbench.core.training_loop"),
])
def test_a_planted_import_breaks_the_contract(tmp_path, planted, source, expected):
    """The checks are real: plant an import in a copy of the package and it must fail."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "workbench", copy / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__", "_resources"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    (copy / planted).write_text(source)
    result = _lint_imports(copy, env={**os.environ, "PYTHONPATH": str(copy)})
    assert result.returncode != 0
    assert expected in result.stdout
