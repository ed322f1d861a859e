#!/usr/bin/env python3
"""Install the built wheel on a fresh Debian 13's Python 3.13 and run it offline (issue 35).

    sudo .venv/bin/python packaging/check_wheel_fresh_python.py [--wheel X.whl]
        [--installer pip|pipx|uv] [--root /tmp/debian-trixie] [--suite trixie]
        [--mirror URL] [--shot OUT.png] [--ca-bundle CA.crt]

The wheel was only ever installed with the project's Python 3.11, where constraints.txt pins
torch to the CPU wheel. A classroom's Debian 13 has Python 3.13, and a user's `pip install`
takes torch from PyPI as it is (on Linux x86_64, the CUDA build with NVIDIA's libraries).
As root on a Linux host with debootstrap:

1. `debootstrap --variant=minbase SUITE ROOT`, reused when complete: no Python, no X libraries.
2. In a copy of it, by --installer (the network's only use besides apt; timed):
   pip:  `apt-get install python3 python3-venv`, a venv, `pip install THE.whl` from PyPI;
   pipx: `apt-get install pipx` (Debian's), `pipx install THE.whl`: its own venv, ~/.local/bin;
   uv:   the host's uv binary copied to /usr/local/bin (Debian 13 has no uv package),
         `apt-get install python3`, `uv tool install THE.whl --python /usr/bin/python3`.
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
LOCAL_BIN = "/tmp/home/.local/bin"  # where pipx and uv put a tool's commands (HOME=/tmp/home)
PIP_LOG = "/tmp/home/pip.log"  # pip's log under pipx, for its "Downloading" lines
APT = ["apt-get", "install", "-y", "-q", "--no-install-recommends"]
# the host's uv (the project's venv has it as a pip package); Debian 13 packages no uv
HOST_UV = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "uv"


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


def downloads(output: str) -> tuple[int, float]:
    """(files, MB) from pip's "Downloading name (12.3 MB)" lines, or uv's "Downloading name
    (12.3MiB)" ones (uv names only its larger downloads: 1 MiB and over)."""
    scale = {"kB": 1e-3, "MB": 1.0, "GB": 1e3, "KiB": 1.024e-3, "MiB": 1.048576, "GiB": 1073.7}
    found = re.findall(r"Downloading \S+ \(([\d.]+) ?(kB|MB|GB|KiB|MiB|GiB)\)", output)
    return len(found), sum(float(size) * scale[unit] for size, unit in found)


def shown(done: subprocess.CompletedProcess, chars: int = 600) -> str:
    return f"exit {done.returncode}; {(done.stdout + done.stderr)[-chars:].strip()}"


def install(root: Path, installer: str, wheel: str, ca: str | None, results: dict,
            facts: dict) -> tuple[subprocess.CompletedProcess, str, float]:
    """apt for what the installer needs, then the installer on the wheel: (its run, the
    workbench command, its seconds)."""
    # a minbase debootstrap of trixie keeps no Packages lists: `apt-get update` comes first,
    # as on any fresh machine
    update = in_root(root, ["apt-get", "update", "-q"], timeout=1800)
    packages = {"pip": ["python3", "python3-venv"], "pipx": ["pipx"], "uv": ["python3"]}[installer]
    got = in_root(root, [*APT, *packages], timeout=1800)
    results[f"apt installs {' '.join(packages)}"] = update.returncode == 0 == got.returncode
    facts["python"] = in_root(root, ["python3", "-c", "import sys; print(sys.version)"]
                              ).stdout.strip()
    # where HTTPS passes a proxy only the host trusts (not on a user's machine): pip reads
    # PIP_CERT (pipx runs pip, so it passes through), uv reads SSL_CERT_FILE
    env = ["env", "PIP_CERT=/tmp/host-ca.crt", "SSL_CERT_FILE=/tmp/host-ca.crt"] if ca else []
    program = {"pip": f"{VENV}/bin/pip", "pipx": "pipx", "uv": "/usr/local/bin/uv"}[installer]
    if installer == "pip":
        venv = in_root(root, ["python3", "-m", "venv", VENV])
        results["python3 -m venv"] = venv.returncode == 0
        command, workbench = [program, "install", wheel], f"{VENV}/bin/workbench"
    elif installer == "pipx":  # pipx keeps pip's output to itself, even with --verbose
        command = [program, "install", "--verbose", f"--pip-args=--log {PIP_LOG}", wheel]
        workbench = f"{LOCAL_BIN}/workbench"
    else:  # --python: uv would otherwise fetch a Python from GitHub, which is not reachable
        shutil.copy(HOST_UV, root / program.lstrip("/"))
        command = [program, "tool", "install", wheel, "--python", "/usr/bin/python3"]
        workbench = f"{LOCAL_BIN}/workbench"
    facts[f"{installer} version"] = in_root(root, [program, "--version"]).stdout.strip()
    started = time.monotonic()
    done = in_root(root, [*env, *command], timeout=5400)
    seconds = time.monotonic() - started
    if installer == "pipx":  # the pip that pipx ran (from its shared venv) and what it logged
        log = root / PIP_LOG.lstrip("/")
        done.stdout += log.read_text(encoding="utf-8") if log.is_file() else ""
        facts["pip under pipx"] = in_root(root, [
            "/tmp/home/.local/share/pipx/shared/bin/python", "-m", "pip", "--version"]
                                          ).stdout.strip()
    return done, workbench, seconds


def check(root: Path, wheel: Path, installer: str, shot: Path, ca_bundle: str | None,
          results: dict, facts: dict) -> None:
    mount_proc_dev(root)
    shutil.copy(wheel, root / "tmp" / wheel.name)
    if ca_bundle:
        shutil.copy(ca_bundle, root / "tmp" / "host-ca.crt")
    done, workbench, seconds = install(root, installer, f"/tmp/{wheel.name}", ca_bundle,
                                       results, facts)
    log = shot.with_name(f"check-wheel-{installer}-install.log")
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    print(done.stdout[-1500:], done.stderr[-3000:])
    results[f"{installer} install of the wheel (from PyPI)"] = done.returncode == 0
    if done.returncode:
        return
    # pipx and uv link ~/.local/bin/workbench into the venv each made: find that venv
    real = in_root(root, ["readlink", "-f", workbench]).stdout.strip()
    venv = str(Path(real).parent.parent)
    files, megabytes = downloads(done.stdout + done.stderr)
    summary = " ".join(re.findall(r"^(?:Resolved|Prepared|Installed) \d+ packages in \S+",
                                  done.stderr, re.M))  # uv's lines (no sizes)
    size = run(["du", "-sm", str(root / venv.lstrip("/"))]).stdout.split("\t")[0]
    got = f"{files} files downloaded, {megabytes:.0f} MB by the installer's own sizes"
    got += f" ({summary})" if summary else ""
    facts["install"] = f"{seconds / 60:.1f} min, {got}, venv {venv} {size} MB; output in {log}"
    # importlib.metadata, not pip freeze: uv's tool venvs have no pip
    listing = in_root(root, [f"{venv}/bin/python", "-c", "import importlib.metadata as m; "
                             "print(*sorted(f'{d.name}=={d.version}' for d in m.distributions())"
                             ", sep='\\n')"], offline=True).stdout
    facts["installed"] = " ".join(line for line in listing.splitlines() if re.match(
        r"(torch|numpy|scipy|PySide6|gensim|openTSNE|numba|umap|nvidia-cublas)", line, re.I))
    torch = in_root(root, [f"{venv}/bin/python", "-c", "import torch; print(torch.__version__,"
                           " 'CUDA', torch.version.cuda)"], offline=True)
    facts["torch"] = torch.stdout.strip() or shown(torch)

    version = in_root(root, [workbench, "--version"], offline=True)
    print(shown(version))
    results["workbench --version (offline)"] = version.returncode == 0

    # the sample model and recipe inside the installed wheel, where a user's pip puts them
    resources = next((root / venv.lstrip("/")).glob("lib/python3*/site-packages/workbench/"
                                                     "_resources"))
    inside = "/" + str(resources.relative_to(root))
    text = in_root(root, [workbench, "generate", f"{inside}/models/char-lstm", "--prompt",
                          "ROMEO:", "--tokens", "120", "--seed", "1"], offline=True)
    print(shown(text, 400))
    results["workbench generate from the shipped char-lstm (offline)"] = (
        text.returncode == 0 and len(text.stdout.strip()) > 60)

    train = in_root(root, [workbench, "train", f"{inside}/recipes/char-lstm.toml", "--max-steps",
                           "3", "--threads", "1", "--out", "/tmp/x"], offline=True, timeout=900)
    print(shown(train, 800))
    results["workbench train char-lstm.toml, 3 steps, a checkpoint (offline)"] = (
        train.returncode == 0 and (root / "tmp/x/checkpoints/latest.json").is_file())

    offscreen = ["env", "QT_QPA_PLATFORM=offscreen", workbench, "--screenshot"]
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
    parser.add_argument("--installer", choices=("pip", "pipx", "uv"), default="pip")
    parser.add_argument("--shot", type=Path, help="default: fresh-python-wheel-INSTALLER.png")
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
    if args.installer == "uv" and not HOST_UV.is_file():
        sys.exit(f"No uv at {HOST_UV}: `.venv/bin/pip install uv`")
    ensure_root(args.root, args.suite, args.mirror)
    results: dict[str, bool] = {}
    facts: dict[str, str] = {"wheel": wheel.name, "suite": args.suite}
    shot = args.shot or Path(f"fresh-python-wheel-{args.installer}.png")
    root = fresh_copy(args.root, f"wheel-{args.installer}")
    try:
        check(root, wheel.absolute(), args.installer, shot.absolute(), args.ca_bundle, results,
              facts)
    finally:
        unmount(root)
    for name, held in results.items():
        print(f"{'ok  ' if held else 'FAIL'} {name}")
    for name, value in facts.items():
        print(f"  {name}: {value}")
    return 0 if results and all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
