"""Start-up: how long from launching the real entry point to a usable window (issues 16, 18).

Run: `.venv/bin/python -m benchmarks.bench_startup [--repeats 7] [--frozen dist/SequenceWorkbench]
[--display xvfb|offscreen] [--no-default-corpus] [--cold]`.

Each launch starts the program as a user does (the source install's `workbench` script, and with
`--frozen` the PyInstaller app too) in a fresh HOME (first start: no settings, no runs), with
`WORKBENCH_READY_FILE` set: the app writes a line once the window has painted and its event
loop is idle again (workbench/app/first_paint.py). The time counted is from just before the
process is created to that line, so it includes the interpreter or the frozen bootloader
starting, every import, building the panels and the first paint. Then the process group is
ended. The reference, launched in turn with the others, is a bare PySide6 window started by the
same Python (`reference_window.py` below): the app's ratio to it says what the app adds to the
start of any Qt program on this machine, under the same load. The app's line also names the
heavy modules (torch, gensim, numba, ...) already imported when the window was shown: there
should be none.

With `--cold` (root only) the kernel's page cache is emptied before every launch, so each one
reads the interpreter, Qt and the app's files from disk as the first start after a boot does;
no warm-up round is then left out.

`packaging/check_linux.py` uses `time_launch` and `virtual_display` for the installed app.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY_FILE_ENV = "WORKBENCH_READY_FILE"  # the name workbench/app/first_paint.py reads

# The floor: a QMainWindow with a label, timed the same way.
REFERENCE_WINDOW = """
import os, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.setCentralWidget(QLabel("reference"))
window.resize(1400, 900)
def ready():
    with open(os.environ["WORKBENCH_READY_FILE"], "a") as out:
        out.write(f"ready {time.time():.6f} {time.process_time():.6f} -\\n")
original = window.paintEvent
def paint(event):
    original(event)
    window.paintEvent = original
    QTimer.singleShot(0, ready)
window.paintEvent = paint
window.show()
app.exec()
"""


@dataclass(frozen=True)
class Launch:
    seconds: float  # process creation to the ready line
    cpu_s: float  # CPU the app had used by then
    heavy_before_show: tuple[str, ...]  # heavy modules imported before the window showed


def parse_ready_line(line: str, started: float) -> Launch:
    """`ready <unix time> <cpu seconds> <modules or ->` -> Launch (raises ValueError)."""
    parts = line.split()
    if len(parts) != 4 or parts[0] != "ready":
        raise ValueError(f"not a ready line: {line!r}")
    heavy = () if parts[3] == "-" else tuple(parts[3].split(","))
    return Launch(float(parts[1]) - started, float(parts[2]), heavy)


def time_launch(command: list[str], env: dict[str, str], timeout_s: float = 120.0,
                linger_s: float = 0.0) -> Launch:
    """Start `command`, wait for its ready line, let it run `linger_s` more (the work that
    follows the first paint), end its process group, return the timing."""
    with tempfile.TemporaryDirectory(prefix="wb-ready-") as tmp:
        ready = Path(tmp) / "ready"
        env = {**env, READY_FILE_ENV: str(ready)}
        started = time.time()
        proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            while not (ready.exists() and ready.read_text().endswith("\n")):
                if proc.poll() is not None:
                    raise RuntimeError(f"{command[0]} exited ({proc.returncode}) before its "
                                       f"window was ready: {proc.stderr.read()[-2000:]!r}")
                if time.time() - started > timeout_s:
                    raise RuntimeError(f"{command[0]}: no usable window after {timeout_s:.0f} s")
                time.sleep(0.01)
            launch = parse_ready_line(ready.read_text().splitlines()[0], started)
            time.sleep(linger_s)
            if proc.poll() is not None:
                raise RuntimeError(f"{command[0]} exited ({proc.returncode}) after its window "
                                   f"was ready: {proc.stderr.read()[-2000:]!r}")
            return launch
        finally:
            _end_group(proc)


def _end_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    proc.stderr.close()


@contextlib.contextmanager
def virtual_display(kind: str):
    """Environment for a real X window on Xvfb ("xvfb"), or Qt's offscreen platform."""
    if kind == "offscreen":
        yield {"QT_QPA_PLATFORM": "offscreen"}
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise SystemExit("Xvfb is not installed (apt-get install xvfb libxcb-icccm4 "
                         "libxcb-keysyms1), or pass --display offscreen.")
    display = f":{90 + os.getpid() % 9}"
    server = subprocess.Popen([xvfb, display, "-screen", "0", "1920x1080x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket = Path(f"/tmp/.X11-unix/X{display[1:]}")
        deadline = time.time() + 20
        while not socket.exists() and time.time() < deadline:
            time.sleep(0.05)
        yield {"QT_QPA_PLATFORM": "xcb", "DISPLAY": display}
    finally:
        server.terminate()
        server.wait(timeout=10)


def fresh_env(home: Path, platform_env: dict[str, str], path: str | None = None) -> dict:
    """A first start: an empty HOME and XDG folders, the user's PATH unless one is given."""
    runtime = home / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    return {
        "HOME": str(home), "PATH": path if path is not None else os.environ.get("PATH", ""),
        "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"), **platform_env,
    }


def summary(name: str, launches: list[Launch], reference: list[Launch] | None) -> str:
    seconds = [launch.seconds for launch in launches]
    cpu = statistics.median(launch.cpu_s for launch in launches)
    heavy = sorted({m for launch in launches for m in launch.heavy_before_show}) or ["none"]
    row = (f"| {name} | {statistics.median(seconds):.2f} | {min(seconds):.2f} | "
           f"{max(seconds):.2f} | {cpu:.2f} |")
    if reference:
        ratios = [a.seconds / b.seconds for a, b in zip(launches, reference, strict=False)]
        row += f" {statistics.median(ratios):.2f} |"
    else:
        row += " - |"
    return row + f" {', '.join(heavy)} |"


def drop_page_cache() -> None:
    """Write dirty pages out and empty the kernel's page cache, as after a reboot."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as exc:
        raise SystemExit(f"--cold needs root to empty the page cache ({exc.strerror})") from exc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--frozen", metavar="DIR", help="also time this PyInstaller app folder")
    parser.add_argument("--display", choices=("xvfb", "offscreen"), default="offscreen")
    parser.add_argument("--no-default-corpus", action="store_true",
                        help="start without opening the shipped corpus")
    parser.add_argument("--cold", action="store_true",
                        help="empty the page cache before every launch (needs root)")
    args = parser.parse_args()
    extra = ["--no-default-corpus"] if args.no_default_corpus else []
    commands = {"source install (workbench script)": [str(Path(sys.executable).parent /
                                                          "workbench"), *extra]}
    if args.frozen:
        commands["frozen app"] = [str(Path(args.frozen) / "SequenceWorkbench"), *extra]
    commands["reference: bare PySide6 window"] = [sys.executable, "-c", REFERENCE_WINDOW]
    results: dict[str, list[Launch]] = {name: [] for name in commands}
    load_before = os.getloadavg()
    with virtual_display(args.display) as platform_env, \
            tempfile.TemporaryDirectory(prefix="wb-startup-") as tmp:
        # the first round warms the page cache, unless every launch starts cold
        for repeat in range(0 if args.cold else -1, args.repeats):
            for name, command in commands.items():
                env = fresh_env(Path(tmp) / f"home-{repeat}-{len(results[name])}", platform_env)
                env["WORKBENCH_RUNS_DIR"] = str(Path(tmp) / "runs")
                if args.cold:
                    drop_page_cache()
                launch = time_launch(command, env)
                if repeat >= 0:
                    results[name].append(launch)
                print(f"  {name}: {launch.seconds:.2f} s", file=sys.stderr)
    load_after = os.getloadavg()
    reference = results.pop("reference: bare PySide6 window")
    rounds = "each from an empty page cache" if args.cold else "each after one warm-up round"
    print(f"\n{args.repeats} launches {rounds}, display {args.display}, "
          f"{'no corpus' if extra else 'default corpus'}; load average before "
          f"{load_before[0]:.2f}, after {load_after[0]:.2f} ({os.cpu_count()} cores)\n")
    print("| launch | median s | min s | max s | CPU s (median) | ÷ bare Qt window | "
          "heavy modules before show |")
    print("|---|---|---|---|---|---|---|")
    for name, launches in results.items():
        print(summary(name, launches, reference))
    print(summary("reference: bare PySide6 window", reference, None))


if __name__ == "__main__":
    main()
