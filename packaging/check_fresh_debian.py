#!/usr/bin/env python3
"""Install the .deb into a minimal Debian and open the app in a real X window (issue 35).

    sudo .venv/bin/python packaging/check_fresh_debian.py --deb dist/X.deb
        [--tarball dist/X.tar.gz] [--root DIR] [--suite bookworm] [--mirror URL]
        [--shot OUT.png] [--routes named,depends,tarball]

What a classroom's fresh machine meets, as root on a Linux host with debootstrap and Xvfb:

1. `debootstrap --variant=minbase SUITE ROOT` (reused when ROOT already holds one): a Debian
   with no X libraries, no Python and no desktop.
2. In one copy of it, the .deb's files alone (`dpkg-deb -x`, its Depends not installed): the
   app, started with the real xcb platform, must print the apt packages to install and exit
   1, not Qt's one-line abort; then apt installs exactly the packages it named, and the
   window must open. So the message is enough.
3. In a second copy, `apt-get install ./app.deb`: apt installs what its Depends names (from
   the mirror; the one step that needs the network), then `--version` and the window.
   Then fastText vectors with their t-SNE map, and `train --nproc 2` (two ranks through
   torchrun, which meet over the loopback: the one step not in a network namespace).
   Otherwise the app runs in a network namespace (`unshare -n`: offline) against an Xvfb
   display on the host, and its window must be drawn (a screenshot, not blank).
4. In a third copy, the .tar.gz unpacked into /opt and the apt line packaging/README.md gives
   for it (read from that file, so the documented line is the one checked): the window.

Exit status 0 when every step holds; each step's outcome is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_linux import image_looks_drawn  # noqa: E402

DISPLAY = ":77"
APP = "/usr/bin/SequenceWorkbench"


def run(command: list[str], timeout: int = 1800, check: bool = False
        ) -> subprocess.CompletedProcess:
    print("$", " ".join(command), flush=True)
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=check)
    except subprocess.TimeoutExpired:  # a window that opened where it should not have
        return subprocess.CompletedProcess(command, -9, "", f"no end after {timeout} s")


def in_root(root: Path, command: list[str], offline: bool = False, timeout: int = 600,
            display: bool = False) -> subprocess.CompletedProcess:
    """`command` inside the Debian at `root`, with an environment built from nothing."""
    env = ["env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/tmp/home", "LANG=C.UTF-8"]
    if display:
        env += [f"DISPLAY={DISPLAY}", "QT_QPA_PLATFORM=xcb"]
    prefix = ["unshare", "-n"] if offline else []
    return run([*prefix, "chroot", str(root), *env, *command], timeout=timeout)


def make_root(root: Path, suite: str, mirror: str) -> None:
    if (root / "etc" / "debian_version").is_file():
        print(f"reusing the Debian at {root}")
        return
    done = run(["debootstrap", "--variant=minbase", suite, str(root), mirror])
    if done.returncode:
        sys.exit(f"debootstrap failed: {done.stderr[-2000:]}")


def mount_x_socket(root: Path) -> None:
    target = root / "tmp" / ".X11-unix"
    target.mkdir(parents=True, exist_ok=True)
    if not os.path.ismount(target):
        subprocess.run(["mount", "--bind", "/tmp/.X11-unix", str(target)], check=True)
    for name in ("proc", "dev"):
        mount = root / name
        if not os.path.ismount(mount):
            subprocess.run(["mount", "--bind", f"/{name}", str(mount)], check=True)


def unmount(root: Path) -> None:
    for name in ("tmp/.X11-unix", "proc", "dev"):
        subprocess.run(["umount", "-l", str(root / name)], capture_output=True)


def start_xvfb() -> subprocess.Popen:
    server = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1366x768x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2)
    return server


def fresh_copy(pristine: Path, name: str) -> Path:
    """A copy of the pristine Debian, so each route starts from a machine nothing touched."""
    copy = pristine.parent / f"{pristine.name}-{name}"
    unmount(copy)
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(pristine), str(copy)], check=True)
    (copy / "tmp" / "home").mkdir(parents=True, exist_ok=True)
    # debootstrap writes no /etc/hosts; Debian's installer does, and torchrun's ranks meet at
    # "localhost" (without it: "The connection to the C10d store has failed")
    hosts = copy / "etc" / "hosts"
    if not hosts.is_file():
        hosts.write_text("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
                         encoding="utf-8")
    return copy


def window_opens(root: Path, shot: Path, app: str = APP) -> tuple[bool, str]:
    """The app draws its window under the real xcb platform, offline; the PNG is kept."""
    done = in_root(root, [app, "--screenshot", "/tmp/home/shot.png"], offline=True,
                   display=True, timeout=600)
    png = root / "tmp" / "home" / "shot.png"
    drawn, how = image_looks_drawn(png)
    if png.is_file():
        shutil.copy(png, shot)
    return done.returncode == 0 and drawn, f"exit {done.returncode}; {how}; {done.stderr[-300:]}"


def message_route(root: Path, deb: Path, shot: Path, results: dict) -> None:
    """The app's files alone (`dpkg-deb -x`, no Depends): it names the packages; installing
    exactly those opens the window."""
    run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    mount_x_socket(root)
    bare = in_root(root, [APP], offline=True, display=True, timeout=120)
    print(bare.stderr[-1500:])
    line = next((x for x in bare.stderr.splitlines() if "sudo apt install" in x), "")
    packages = line.split("sudo apt install", 1)[-1].split()
    results["on a bare Debian the app names the apt packages, exit 1"] = (
        bare.returncode == 1 and bool(packages))
    got = in_root(root, ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
                  timeout=1800)
    results[f"apt installs what it named ({' '.join(packages)})"] = got.returncode == 0
    opened, how = window_opens(root, shot.with_name(shot.stem + "-named" + shot.suffix))
    print(f"window after the named packages: {how}")
    results["with exactly those, the window draws (xcb, offline)"] = opened


def depends_route(root: Path, deb: Path, shot: Path, results: dict) -> None:
    """`apt-get install ./app.deb`: apt installs the Depends, and the window opens."""
    shutil.copy(deb, root / "tmp" / "app.deb")
    mount_x_socket(root)
    got = in_root(root, ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                         "/tmp/app.deb"], timeout=1800)
    print(got.stdout[-800:], got.stderr[-400:])
    results["apt-get install of the .deb brings its Depends"] = got.returncode == 0
    version = in_root(root, [APP, "--version"], offline=True, display=True)
    results["--version"] = version.returncode == 0
    opened, how = window_opens(root, shot)
    print(f"window after the .deb's Depends: {how}")
    results["the installed .deb draws its window (xcb, offline)"] = opened
    corpus = "/opt/sequence-workbench/_internal/resources/corpora/shakespeare-small"
    vectors = in_root(root, [APP, "vectors", corpus, "--model", "fasttext", "--epochs", "1",
                             "--out", "/tmp/home/ft.txt", "--map", "tsne"], offline=True,
                      timeout=900)
    print(vectors.stdout[-400:], vectors.stderr[-600:])
    results["fastText vectors and their t-SNE map, offline"] = (
        vectors.returncode == 0 and (root / "tmp/home/ft.txt").is_file()
        and (root / "tmp/home/ft.map.csv").is_file())
    # two ranks meet over the loopback, which a fresh network namespace has down: run as is
    recipe = "/opt/sequence-workbench/_internal/resources/recipes/char-lstm.toml"
    ranks = in_root(root, [APP, "train", recipe, "--nproc", "2", "--max-steps", "4",
                           "--threads", "1", "--out", "/tmp/home/ddp"], timeout=900)
    print(ranks.stdout[-600:], ranks.stderr[-1200:])
    results["train --nproc 2 in the installed app"] = (
        ranks.returncode == 0 and (root / "tmp/home/ddp/checkpoints/latest.json").is_file())


README = Path(__file__).with_name("README.md")


def documented_apt_line(readme: Path = README) -> list[str]:
    """The packages packaging/README.md tells a tarball's user to install."""
    after = readme.read_text(encoding="utf-8").split("For the tarball, the line is", 1)[-1]
    return after.split("`sudo apt install", 1)[-1].split("`", 1)[0].split()


def tarball_route(root: Path, tarball: Path, shot: Path, results: dict) -> None:
    """The .tar.gz unpacked into /opt, then the documented apt line: the window opens."""
    run(["tar", "-xzf", str(tarball), "-C", str(root / "opt")], check=True)
    mount_x_socket(root)
    packages = documented_apt_line()
    got = in_root(root, ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                         *packages], timeout=1800)
    results[f"the tarball's documented apt line installs ({len(packages)} packages)"] = (
        got.returncode == 0 and len(packages) > 10)
    opened, how = window_opens(root, shot.with_name(shot.stem + "-tarball" + shot.suffix),
                               "/opt/SequenceWorkbench/SequenceWorkbench")
    print(f"window of the tarball after its apt line: {how}")
    results["the tarball's app draws its window (xcb, offline)"] = opened


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", required=True, type=Path)
    parser.add_argument("--tarball", type=Path, help="the .tar.gz (default: beside the .deb)")
    parser.add_argument("--routes", default="named,depends,tarball",
                        help="which installs to check, comma-separated")
    parser.add_argument("--root", type=Path, default=Path("/tmp/fresh-debian"))
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--shot", type=Path, default=Path("fresh-debian.png"))
    args = parser.parse_args(argv)
    for tool in ("debootstrap", "Xvfb", "unshare", "chroot", "dpkg-deb"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is needed (apt-get install debootstrap xvfb util-linux)")
    make_root(args.root, args.suite, args.mirror)
    tarball = args.tarball or next(args.deb.parent.glob("SequenceWorkbench-*-linux-*.tar.gz"),
                                   None)
    routes = {"named": (message_route, args.deb), "depends": (depends_route, args.deb),
              "tarball": (tarball_route, tarball)}
    chosen = [name.strip() for name in args.routes.split(",")]
    if "tarball" in chosen and tarball is None:
        sys.exit("No .tar.gz beside the .deb: give --tarball or leave 'tarball' out of --routes")
    server, results, roots = start_xvfb(), {}, []
    try:
        for name in chosen:
            route, package = routes[name]
            roots.append(fresh_copy(args.root, name))
            route(roots[-1], package.absolute(), args.shot.absolute(), results)
    finally:
        server.terminate()
        for root in roots:
            unmount(root)
    for check, held in results.items():
        print(f"{'ok  ' if held else 'FAIL'} {check}")
    return 0 if results and all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
