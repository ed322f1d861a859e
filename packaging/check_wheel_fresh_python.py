#!/usr/bin/env python3
"""pip-install the built wheel on a fresh Debian 13's Python 3.13 and run it offline (issue 35).

    sudo .venv/bin/python packaging/check_wheel_fresh_python.py [--wheel X.whl]
        [--root /tmp/debian-trixie] [--suite trixie] [--mirror URL] [--shot OUT.png]
        [--ca-bundle CA.crt]

The wheel was only ever installed with the project's Python 3.11, where constraints.txt pins
torch to the CPU wheel. A classroom's Debian 13 has Python 3.13, and a user's `pip install`
takes torch from PyPI as it is (on Linux x86_64, the CUDA build with NVIDIA's libraries).
As root on a Linux host with debootstrap:

1. `debootstrap --variant=minbase SUITE ROOT`, reused when complete: no Python, no X libraries.
2. In a copy of it: `apt-get install python3 python3-venv`, a venv, `pip install THE.whl` from
   PyPI (the network's only use besides apt; timed, its downloads summed).
3. Offline (`unshare -n`): `workbench --version`; `generate` from the wheel's own char-lstm
   sample model; `train` of its char-lstm recipe for 3 steps (a checkpoint written).
4. The window with the offscreen platform: first with no X libraries (what it says is only
   printed), then after the apt line packaging/README.md gives for the tarball: a drawn PNG.

Exit status 0 when every step holds; each step's outcome is printed, then the facts measured.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_fresh_debian import (  # noqa: E402
    documented_apt_line,
    fresh_copy,
    in_root,
    make_root,
    run,
    unmount,
)
from check_linux import image_looks_drawn  # noqa: E402

VENV = "/tmp/home/venv"  # what a user makes in their home: `python3 -m venv ~/venv`
WORKBENCH = f"{VENV}/bin/workbench"
APT = ["apt-get", "install", "-y", "-q", "--no-install-recommends"]


def ensure_root(root: Path, suite: str, mirror: str) -> None:
    """make_root reuses any folder with /etc/debian_version, which debootstrap writes early:
    a run cut short leaves its /debootstrap folder behind, so start such a one again."""
    if (root / "debootstrap").exists():
        print(f"{root} is an unfinished debootstrap: making it again")
        shutil.rmtree(root)
    make_root(root, suite, mirror)


def mount_proc_dev(root: Path) -> None:
    # torch, psutil and Python's os.urandom need them; no X socket here (offscreen only)
    for name in ("proc", "dev"):
        subprocess.run(["mount", "--bind", f"/{name}", str(root / name)], check=True)


def downloads(pip_output: str) -> tuple[int, float]:
    """(files, MB) from pip's "Downloading name (12.3 MB)" lines."""
    scale = {"kB": 1e-3, "MB": 1.0, "GB": 1e3}
    found = re.findall(r"Downloading \S+ \(([\d.]+) (kB|MB|GB)\)", pip_output)
    return len(found), sum(float(size) * scale[unit] for size, unit in found)


def shown(done: subprocess.CompletedProcess, chars: int = 600) -> str:
    return f"exit {done.returncode}; {(done.stdout + done.stderr)[-chars:].strip()}"


def check(root: Path, wheel: Path, shot: Path, ca_bundle: str | None, results: dict,
          facts: dict) -> None:
    mount_proc_dev(root)
    # a minbase debootstrap of trixie keeps no Packages lists: `apt-get update` comes first,
    # as on any fresh machine
    update = in_root(root, ["apt-get", "update", "-q"], timeout=1800)
    got = in_root(root, [*APT, "python3", "python3-venv"], timeout=1800)
    results["apt installs python3 python3-venv"] = update.returncode == 0 == got.returncode
    facts["python"] = in_root(root, ["python3", "-c", "import sys; print(sys.version)"]
                              ).stdout.strip()
    venv = in_root(root, ["python3", "-m", "venv", VENV])
    facts["pip in the venv"] = in_root(root, [f"{VENV}/bin/pip", "--version"]).stdout.strip()
    results["python3 -m venv"] = venv.returncode == 0

    shutil.copy(wheel, root / "tmp" / wheel.name)
    cert = []
    if ca_bundle:  # where HTTPS passes a proxy only the host trusts (not on a user's machine)
        shutil.copy(ca_bundle, root / "tmp" / "host-ca.crt")
        cert = ["--cert", "/tmp/host-ca.crt"]
    started = time.monotonic()
    pip = in_root(root, [f"{VENV}/bin/pip", "install", *cert, f"/tmp/{wheel.name}"],
                  timeout=5400)
    seconds = time.monotonic() - started
    log = shot.with_name("check-wheel-pip-install.log")
    log.write_text(pip.stdout + pip.stderr, encoding="utf-8")
    print(pip.stdout[-1500:], pip.stderr[-3000:])
    files, megabytes = downloads(pip.stdout)
    size = run(["du", "-sm", str(root / VENV.lstrip("/"))]).stdout.split("\t")[0]
    facts["pip install"] = (f"{seconds / 60:.1f} min, {files} files downloaded, {megabytes:.0f} "
                            f"MB by pip's own sizes, venv {size} MB; full output in {log}")
    results["pip install of the wheel (from PyPI)"] = pip.returncode == 0
    if pip.returncode:
        return
    freeze = in_root(root, [f"{VENV}/bin/pip", "freeze"], offline=True).stdout
    facts["installed"] = " ".join(line for line in freeze.splitlines() if re.match(
        r"(torch|numpy|scipy|PySide6|gensim|openTSNE|numba|umap|nvidia-cublas)", line))
    torch = in_root(root, [f"{VENV}/bin/python", "-c", "import torch; print(torch.__version__,"
                           " 'CUDA', torch.version.cuda)"], offline=True)
    facts["torch"] = torch.stdout.strip() or shown(torch)

    version = in_root(root, [WORKBENCH, "--version"], offline=True)
    print(shown(version))
    results["workbench --version (offline)"] = version.returncode == 0

    # the sample model and recipe inside the installed wheel, where a user's pip puts them
    resources = next((root / VENV.lstrip("/")).glob("lib/python3*/site-packages/workbench/"
                                                     "_resources"))
    inside = "/" + str(resources.relative_to(root))
    text = in_root(root, [WORKBENCH, "generate", f"{inside}/models/char-lstm", "--prompt",
                          "ROMEO:", "--tokens", "120", "--seed", "1"], offline=True)
    print(shown(text, 400))
    results["workbench generate from the shipped char-lstm (offline)"] = (
        text.returncode == 0 and len(text.stdout.strip()) > 60)

    train = in_root(root, [WORKBENCH, "train", f"{inside}/recipes/char-lstm.toml", "--max-steps",
                           "3", "--threads", "1", "--out", "/tmp/x"], offline=True, timeout=900)
    print(shown(train, 800))
    results["workbench train char-lstm.toml, 3 steps, a checkpoint (offline)"] = (
        train.returncode == 0 and (root / "tmp/x/checkpoints/latest.json").is_file())

    offscreen = ["env", "QT_QPA_PLATFORM=offscreen", WORKBENCH, "--screenshot"]
    bare = in_root(root, [*offscreen, "/tmp/home/bare.png"], offline=True, timeout=300)
    facts["offscreen window with no X libraries"] = shown(bare, 400)
    packages = documented_apt_line()
    got = in_root(root, [*APT, *packages], timeout=1800)
    results[f"the README's tarball apt line installs ({len(packages)} packages)"] = (
        got.returncode == 0)
    window = in_root(root, [*offscreen, "/tmp/home/shot.png"], offline=True, timeout=600)
    png = root / "tmp/home/shot.png"
    drawn, how = image_looks_drawn(png)
    if png.is_file():
        shutil.copy(png, shot)
    print(f"window: {how}; {shown(window, 300)}")
    results["the window draws offscreen (offline)"] = window.returncode == 0 and drawn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="default: the newest in /tmp/wheelhouse")
    parser.add_argument("--root", type=Path, default=Path("/tmp/debian-trixie"))
    parser.add_argument("--suite", default="trixie")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--shot", type=Path, default=Path("fresh-python-wheel.png"))
    # a network that intercepts HTTPS (this project's machines do) needs its CA given to pip;
    # by default the one the host's own pip is given, if any
    parser.add_argument("--ca-bundle", default=os.environ.get("PIP_CERT"),
                        help="CA file for pip in the Debian (default: $PIP_CERT)")
    args = parser.parse_args(argv)
    wheel = args.wheel or max(Path("/tmp/wheelhouse").glob("sequence_workbench-*.whl"),
                              key=lambda p: p.stat().st_mtime, default=None)
    if wheel is None or not wheel.is_file():
        sys.exit("No wheel: build one with `pip wheel --no-deps -w /tmp/wheelhouse .`")
    for tool in ("debootstrap", "unshare", "chroot"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is needed (apt-get install debootstrap util-linux)")
    ensure_root(args.root, args.suite, args.mirror)
    results: dict[str, bool] = {}
    facts: dict[str, str] = {"wheel": wheel.name, "suite": args.suite}
    root = fresh_copy(args.root, "wheel")
    try:
        check(root, wheel.absolute(), args.shot.absolute(), args.ca_bundle, results, facts)
    finally:
        unmount(root)
    for name, held in results.items():
        print(f"{'ok  ' if held else 'FAIL'} {name}")
    for name, value in facts.items():
        print(f"  {name}: {value}")
    return 0 if results and all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
