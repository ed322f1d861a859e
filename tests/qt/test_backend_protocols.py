"""The backend seams: the real facades and the tests' one fake implement every Protocol of
core/api.py (same method names, parameters and defaults), and the controller is typed by it."""

from __future__ import annotations

import inspect
import typing

import pytest

from workbench.app.backend import Backend as RealBackend
from workbench.core import api
from workbench.qt.gallery.fake_backend import FakeBackend

DOMAINS = typing.get_type_hints(api.Backend)


def protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(value) for name, value in vars(protocol).items()
            if inspect.isfunction(value) and not name.startswith("_")}


def mismatches(protocol: type, implementation: object) -> list[str]:
    """What `implementation` lacks or asks differently from `protocol`."""
    problems = []
    for name, wanted in protocol_methods(protocol).items():
        method = getattr(implementation, name, None)
        if not callable(method):
            problems.append(f"{name} is missing")
            continue
        given = inspect.signature(method).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in given.values())
        for param in list(wanted.parameters.values())[1:]:  # after self
            if param.kind is param.VAR_KEYWORD:
                if not takes_any:
                    problems.append(f"{name} takes no **{param.name}")
                continue
            mine = given.get(param.name)
            if mine is None:
                problems.append(f"{name} lacks the parameter {param.name}")
            elif param.default is not param.empty and mine.default != param.default:
                problems.append(f"{name}({param.name}) defaults to {mine.default!r}, "
                                f"not {param.default!r}")
        expected = {p.name for p in list(wanted.parameters.values())[1:]}
        extra = [p.name for p in given.values() if p.name not in expected
                 and p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        if extra:
            problems.append(f"{name} needs parameters the protocol does not pass: {extra}")
    return problems


@pytest.mark.parametrize("domain", sorted(DOMAINS))
@pytest.mark.parametrize("backend", [RealBackend, FakeBackend], ids=["real", "fake"])
def test_every_domain_implements_its_protocol(backend, domain):
    implementation = getattr(backend(), domain)
    assert mismatches(DOMAINS[domain], implementation) == []


def test_the_check_catches_a_drifted_method():
    class Drifted:
        def load_job(self, path, glob="*.txt"):  # wrong default, no encoding
            ...

    problems = mismatches(api.CorpusApi, Drifted())
    assert "load_job(glob) defaults to '*.txt', not None" in problems
    assert "load_job lacks the parameter encoding" in problems
    assert "tokenize_job is missing" in problems


def test_the_controller_is_typed_by_the_protocols():
    from workbench.qt.controller import WorkbenchController

    hints = typing.get_type_hints(WorkbenchController.__init__)
    assert hints["backend"] is api.Backend


def test_the_qt_room_asks_only_what_the_protocols_offer():
    """Every `backend.<domain>.<method>` the Qt room calls is declared in core/api.py (so the
    fake has it too and the type says what comes back)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "workbench" / "qt"
    used = set()
    for path in root.rglob("*.py"):
        used |= set(re.findall(r"backend\.(\w+)\.(\w+)\(", path.read_text(encoding="utf-8")))
    assert used, "the scan found no calls"
    undeclared = [f"{d}.{m}" for d, m in sorted(used)
                  if d not in DOMAINS or m not in protocol_methods(DOMAINS[d])]
    assert undeclared == []
