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


def import_circles(package: str = "workbench") -> list[list[str]]:
    """The groups of modules that import each other in a circle (Tarjan's strongly connected
    components of the import graph; imports under `if TYPE_CHECKING:` never run, so are out)."""
    import grimp

    graph = grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=True)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in order:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(
                        child)))))
                elif child in on_stack:
                    low[module] = min(low[module], order[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == order[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_two_modules_import_each_other():
    """Issue 32: a circle (text_data and the BERT reader, the evaluation report and masked-LM
    scoring) makes the order of imports matter and hides which module is the base."""
    assert import_circles() == []


def test_the_circle_finder_finds_a_planted_circle(tmp_path, monkeypatch):
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circled import b\n")
    (package / "b.py").write_text("def f():\n    from circled import a\n")
    (package / "c.py").write_text("from circled import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_circles("circled") == [["circled.a", "circled.b"]]
