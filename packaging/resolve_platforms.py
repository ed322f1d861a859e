#!/usr/bin/env python3
"""Does the wheel's dependency set install on each platform the README names? (issue 35)

    python packaging/resolve_platforms.py [--strict]

Resolves pyproject.toml's dependencies with `uv pip compile --python-platform P --python-version
V --only-binary :all:` for Windows x64, macOS arm64 (14+, torch 2.13's wheels), macOS x86_64,
Linux x86_64 and aarch64, Python 3.11-3.13. uv evaluates environment markers for the target
(pip's --platform evaluates them for this machine, so torch pulled CUDA packages into a
Windows resolution). Prints one line per target and Python. Exit 1 only when a target listed as
supported fails to resolve for a reason other than the network (or, with --strict, when uv or the
network is missing): a CI run without PyPI reports, and does not fail.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHONS = ("3.11", "3.12", "3.13")
# (name, uv's --python-platform, extra environment, supported: why not when it is not)
TARGETS = (
    ("Windows x64", "x86_64-pc-windows-msvc", {}, ""),
    ("macOS arm64 (14+)", "aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}, ""),
    ("macOS x86_64", "x86_64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "13.0"},
     "torch's last Intel-Mac wheel is 2.2.2 (built for numpy 1.x); the wheel asks for 2.3+"),
    ("Linux x86_64 (glibc 2.28+)", "x86_64-manylinux_2_28", {}, ""),
    ("Linux aarch64 (glibc 2.39+)", "aarch64-manylinux_2_39", {}, ""),
    # PySide6-Essentials 6.8.0.2 is the newest with wheels for this glibc (tested on x86_64)
    ("Linux aarch64 (glibc 2.36, Debian 12)", "aarch64-manylinux_2_36", {}, ""),
)
NETWORK = re.compile(r"(?i)(network|dns|connect|timed out|tls|certificate|failed to fetch)")


def resolve(uv: str, platform: str, python: str, env: dict) -> tuple[str, str]:
    """('ok' | 'network' | 'fails', the resolved torch/PySide6 versions or uv's reason)."""
    try:
        done = subprocess.run(
            [uv, "pip", "compile", str(ROOT / "pyproject.toml"), "--python-platform", platform,
             "--python-version", python, "--only-binary", ":all:", "--no-header", "--quiet"],
            # the resolution on stdout (uv 0.13 took `--output-file -` for a file named "-")
            capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir(),
            env={**os.environ, **env})
    except subprocess.TimeoutExpired:
        return "network", "no answer in 300 s"
    if done.returncode == 0:
        pins = [line.split()[0] for line in done.stdout.splitlines()
                if line.lower().startswith(("torch==", "pyside6-essentials==", "numpy=="))]
        return "ok", ", ".join(pins)
    reason = " ".join(done.stderr.split())[-300:]
    return ("network" if NETWORK.search(reason) and "No solution" not in reason
            else "fails"), reason


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strict", action="store_true", help="fail without uv or network")
    args = parser.parse_args()
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if uv is None:
        print("resolve_platforms: uv is not installed (pip install uv): nothing resolved")
        return 1 if args.strict else 0
    unexpected = network = 0
    for name, platform, env, unsupported in TARGETS:
        for python in PYTHONS:
            status, detail = resolve(uv, platform, python, env)
            expected = "ok" if not unsupported else "fails"
            note = f" (not supported: {unsupported})" if unsupported else ""
            print(f"{name:<40} Python {python}: {status}{note}: {detail}", flush=True)
            network += status == "network"
            unexpected += status == "fails" and not unsupported
            if status == "ok" and expected == "fails":
                print(f"  {name} now resolves: check it, and update packaging/README.md")
    if network:
        print(f"{network} resolution(s) could not reach the package index: not counted")
    return 1 if unexpected or (args.strict and network) else 0


if __name__ == "__main__":
    sys.exit(main())
