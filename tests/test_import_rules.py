"""The rules of the three rooms (DESIGN.md section 1), checked with import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    return subprocess.run(
        [exe, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_room_contracts_hold():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_qt_import_in_core_breaks_the_contract(tmp_path):
    """The check is real: plant `import PySide6` in a copy of core and it must fail."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "workbench", copy / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__", "_resources"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    (copy / "workbench" / "core" / "planted.py").write_text("import PySide6\n")
    env_path = f"{copy}"
    result = subprocess.run(
        [shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports",
         "--no-cache"],
        cwd=copy, capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": env_path},
    )
    assert result.returncode != 0
    assert "workbench.core.planted -> PySide6" in result.stdout
