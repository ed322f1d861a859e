#!/usr/bin/env python3
"""Check a built Linux installer the way a classroom machine meets it: installed fresh, no
network, an empty HOME, no Python on PATH.

Usage (from the repository, after `make installers`):
    .venv/bin/python packaging/check_linux.py [--deb dist/X.deb | --tarball dist/X.tar.gz]
        [--display xvfb|offscreen] [--repeats 5] [--keep] [--report out.json] [--shots DIR]

1. Installs the .deb with dpkg (as root; removed again at the end unless --keep) or unpacks the
   tarball into a fresh folder (the default when not root).
2. Runs every step inside a new network namespace (`unshare -n`: no interface but a loopback
   that is down) under `strace -f`, recording every connect/sendto/sendmsg, with HOME an empty
   folder and PATH a folder holding no Python (checked), in an environment built from nothing.
3. Verifies: `--version`; the window opens on the shipped corpus (screenshot, not blank);
   start-up to a usable window (median of --repeats launches, and no heavy module imported
   before the window showed); a short training run of a shipped recipe writes its metrics and
   checkpoints; that run's model and every sample model shipped under resources/ (a checkpoint
   .json beside its .safetensors) generate text; every shipped recipe trains 2 steps; word2vec
   trains on the shipped corpus and its t-SNE map is drawn; and no step tried an internet address
   (AF_INET/AF_INET6). Local sockets (the X server, D-Bus) are listed, not failed.
4. Prints sizes (package, unpacked) and the timings; exit status 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_startup import fresh_env, time_launch, virtual_display  # noqa: E402

APP_NAME = "SequenceWorkbench"
DEB_PREFIX = Path("/opt/sequence-workbench")
NETWORK_CALL = re.compile(r"\b(connect|sendto|sendmsg|sendmmsg)\((.*)$")
PYTHON_NAMES = ("python", "python3", "python3.11")
SHOWN_ERROR_PREFIX = "Shown to the user:"  # workbench/qt/main_window.py logs shown errors so


def network_attempts(strace_text: str) -> tuple[list[str], list[str]]:
    """(internet attempts, local socket calls) among strace's connect/send lines."""
    internet, local = [], []
    for line in strace_text.splitlines():
        match = NETWORK_CALL.search(line)
        if not match:
            continue
        if "AF_INET" in match.group(2):  # AF_INET and AF_INET6
            internet.append(line.strip())
        elif "sa_family=" in match.group(2):
            local.append(line.strip())
    return internet, local


def find_sample_models(resources: Path) -> list[Path]:
    """Checkpoint metadata files (.json) that have their weights (.safetensors) beside them."""
    if not resources.is_dir():
        return []
    return sorted(weights.with_suffix(".json") for weights in resources.rglob("*.safetensors")
                  if weights.with_suffix(".json").is_file())


def empty_path_dir(base: Path) -> str:
    """A PATH with no Python on it: one empty folder (the app needs no other program)."""
    folder = base / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    found = [name for name in PYTHON_NAMES if shutil.which(name, path=str(folder))]
    if found:
        raise RuntimeError(f"PATH {folder} still finds {found}")
    return str(folder)


def folder_size(path: Path) -> int:
    """Bytes on disk as `du -sb` counts them: a hard-linked file once."""
    seen, total = set(), 0
    for entry in path.rglob("*"):
        stat = entry.lstat()
        if (stat.st_dev, stat.st_ino) not in seen:
            seen.add((stat.st_dev, stat.st_ino))
            total += stat.st_size if not entry.is_dir() else 0
    return total


class Checker:
    def __init__(self, app: Path, home: Path, env: dict, out: Path) -> None:
        self.app, self.home, self.env, self.out = app, home, env, out
        self.results: list[dict] = []
        self.internet: list[str] = []
        self.local: set[str] = set()
        # Absolute paths: the app's PATH (an empty folder) is what finds programs here.
        unshare = shutil.which("unshare")
        self.isolate = [unshare, "-n"] if os.geteuid() == 0 else [unshare, "-rn"]
        self.strace = shutil.which("strace")
        self.last_trace: Path | None = None

    def wrapped(self, args: list[str], trace: Path | None) -> list[str]:
        command = [str(self.app), *args]
        if trace is not None and self.strace:
            command = [self.strace, "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,sendmmsg",
                       "-o", str(trace), "--", *command]
        return [*self.isolate, *command]

    def record(self, name: str, ok: bool, detail: str, trace: Path | None = None, **extra):
        if trace is not None and trace.exists():
            internet, local = network_attempts(trace.read_text(errors="replace"))
            self.internet += [f"{name}: {line}" for line in internet]
            self.local.update(re.sub(r"^\d+\s+", "", line)[:120] for line in local)
        self.results.append({"check": name, "ok": ok, "detail": detail, **extra})
        print(f"[{'ok' if ok else 'FAIL'}] {name}: {detail}", flush=True)

    def run(self, name: str, args: list[str],
            timeout_s: float = 600) -> subprocess.CompletedProcess | None:
        trace = self.last_trace = self.out / f"strace-{name}.txt"
        try:
            done = subprocess.run(self.wrapped(args, trace), env=self.env, capture_output=True,
                                  text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.record(name, False, f"no result after {timeout_s:.0f} s", trace)
            return None
        if done.returncode != 0:
            self.record(name, False, f"exit {done.returncode}: {done.stderr[-1500:]}", trace)
            return None
        return done

    def check_version(self) -> None:
        done = self.run("version", ["--version"], 120)
        if done:
            self.record("version", done.stdout.startswith("workbench "), done.stdout.strip(),
                        self.last_trace)

    def check_window(self, shots: Path) -> None:
        for panel in (None, "corpus"):
            name = f"screenshot-{panel or 'window'}"
            png = shots / f"{name}.png"
            args = ["--screenshot", str(png)] + (["--panel", panel] if panel else [])
            done = self.run(name, args, 300)
            if done:
                ok, detail = image_looks_drawn(png)
                errors = [line for line in done.stderr.splitlines() if SHOWN_ERROR_PREFIX in line]
                if errors:  # the window opened, but a panel or job failed inside it
                    ok, detail = False, f"{detail}; the window showed: {errors}"
                self.record(name, ok, f"{png} ({detail})", self.last_trace)

    def check_startup(self, repeats: int) -> None:
        times, heavy = [], set()
        try:
            for index in range(repeats):
                trace = self.out / "strace-startup.txt" if index == 0 else None
                launch = time_launch(self.wrapped([], trace), self.env,
                                     linger_s=8.0 if trace else 0.0)
                if trace is None:  # strace slows the traced launch: not timed
                    times.append(launch.seconds)
                heavy.update(launch.heavy_before_show)
                print(f"    launch {index + 1}: {launch.seconds:.2f} s"
                      f"{' (traced, not counted)' if trace else ''}", flush=True)
        except RuntimeError as exc:
            self.record("startup", False, str(exc), self.out / "strace-startup.txt")
            return
        median = statistics.median(times) if times else float("nan")
        self.record("startup", not heavy and bool(times),
                    f"median {median:.2f} s to a usable window over {len(times)} launches "
                    f"(min {min(times, default=0):.2f}, max {max(times, default=0):.2f}); heavy "
                    f"modules before show: {', '.join(sorted(heavy)) or 'none'}",
                    self.out / "strace-startup.txt", seconds=times, median_s=median)

    def check_training(self, resources: Path) -> Path | None:
        run = self.home / "check-run"
        recipe = resources / "recipes" / "char-lstm.toml"
        started = time.time()
        done = self.run("train", ["train", str(recipe), "--max-steps", "30", "--threads", "1",
                                  "--out", str(run)], 900)
        if not done:
            return None
        metrics = (run / "metrics.jsonl").read_text().splitlines() if (
            run / "metrics.jsonl").exists() else []
        checkpoints = sorted(p.name for p in (run / "checkpoints").glob("*.json"))
        ok = bool(metrics) and bool(checkpoints)
        self.record("train", ok, f"{recipe.name}, 30 steps in {time.time() - started:.0f} s: "
                    f"{len(metrics)} metric lines, checkpoints {checkpoints}; last line: "
                    f"{done.stderr.strip().splitlines()[-2:] if done.stderr else ''}",
                    self.last_trace)
        return run if ok else None

    def check_recipes(self, resources: Path) -> None:
        """Every shipped recipe trains 2 steps: each task and model family (language models,
        seq2seq, classifiers, taggers, the masked LM and the fine-tuning that starts from it)
        finds what it needs in the bundle. They go to the default runs folder, where the
        fine-tuning recipe (pretrained = "run:NAME") finds the masked LM's run."""
        recipes = sorted((resources / "recipes").glob("*.toml"),
                         key=lambda p: ('pretrained = "run:' in p.read_text(), p.name))
        for recipe in recipes:
            started = time.time()
            name = f"recipe-{recipe.stem}"
            done = self.run(name, ["train", str(recipe), "--max-steps", "2", "--threads", "1"])
            if done:
                self.record(name, bool(done.stdout.strip()), f"2 steps in "
                            f"{time.time() - started:.0f} s into {done.stdout.strip()}",
                            self.last_trace)

    def check_vectors(self, resources: Path) -> None:
        """word2vec on the shipped small corpus with its evaluation scores (gensim and its
        evaluation sets), then a t-SNE map of every word (openTSNE, scikit-learn, scipy)."""
        out = self.home / "vectors.txt"
        started = time.time()
        done = self.run("vectors-tsne", ["vectors", str(resources / "corpora" /
                                                     "shakespeare-small"), "--epochs", "1",
                                         "--out", str(out), "--map", "tsne"], 900)
        if done:
            words = int(out.read_text(encoding="utf-8").split(maxsplit=1)[0])
            rows = out.with_suffix(".map.csv").read_text(encoding="utf-8").splitlines()
            epoch = [line for line in done.stderr.splitlines() if line.startswith("epoch")]
            self.record("vectors-tsne", words > 100 and len(rows) == words + 1
                        and "wordsim353" in done.stderr, f"{words} words, {len(rows) - 1} "
                        f"mapped in {time.time() - started:.0f} s; {epoch}", self.last_trace)

    def check_generation(self, name: str, checkpoint: Path) -> None:
        done = self.run(name, ["generate", str(checkpoint), "--prompt", "ROMEO:", "--tokens",
                               "120", "--seed", "1"], 300)
        if done:
            text = done.stdout.strip()
            self.record(name, len(text) > len("ROMEO:") + 20, f"{checkpoint}: {text[:160]!r}",
                        self.last_trace)

    def check_refusals(self, resources: Path) -> None:
        """The reliability libraries are in the bundle and used: pydantic refuses a recipe
        with a misspelled key, and `regex` stops a catastrophically backtracking word
        pattern at its time limit (a missing library fails these with an import error)."""
        recipe = (resources / "recipes" / "char-lstm.toml").read_text()
        misspelled = self.home / "misspelled.toml"
        misspelled.write_text(recipe.replace("hidden_size =", "hiden_size ="))
        corpus = self.home / "aaa.txt"
        corpus.write_text("a" * 30 + "b\n" + ("a" * 25 + "b\n") * 2000)
        pattern = self.home / "catastrophic.toml"
        pattern.write_text(recipe.replace('resource = "corpora/shakespeare-small"',
                                          f'path = "{corpus}"')
                           .replace('kind = "char"', 'kind = "word"\nword_pattern = "(a|aa)+$"'))
        for name, path, expected in (
                ("refuse-misspelled-key", misspelled, "did you mean 'hidden_size'"),
                ("refuse-catastrophic-pattern", pattern, "backtracks catastrophically")):
            trace = self.last_trace = self.out / f"strace-{name}.txt"
            done = subprocess.run(self.wrapped(["train", str(path), "--max-steps", "1",
                                                "--out", str(self.home / name)], trace),
                                  env=self.env, capture_output=True, text=True, timeout=300,
                                  stdin=subprocess.DEVNULL)
            said = (done.stderr.strip().splitlines() or [""])[-1]
            self.record(name, done.returncode != 0 and expected in done.stderr,
                        f"exit {done.returncode}: {said[:200]}", trace)


def image_looks_drawn(png: Path) -> tuple[bool, str]:
    """A real screenshot: big enough and many colours (text, plots, widgets), not blank."""
    if not png.exists() or png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        return False, "no PNG written"
    try:
        from PySide6.QtGui import QImage
    except ImportError:
        return png.stat().st_size > 20_000, f"{png.stat().st_size} bytes (PySide6 absent here)"
    image = QImage(str(png))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    return (image.width() >= 600 and image.height() >= 400 and len(colours) > 20,
            f"{image.width()}x{image.height()}, {len(colours)} colours sampled")


def install(args, work: Path) -> tuple[Path, Path, Path, bool]:
    """(launcher, app folder, package, installed with dpkg)."""
    package = Path(args.deb or args.tarball or "")
    use_deb = bool(args.deb) or (not args.tarball and os.geteuid() == 0)
    if not package.name:
        pattern = "sequence-workbench_*.deb" if use_deb else f"{APP_NAME}-*-linux-*.tar.gz"
        found = sorted((ROOT / "dist").glob(pattern), key=lambda p: p.stat().st_mtime)
        if not found:
            raise SystemExit(f"No dist/{pattern}: run `make installers` first.")
        package = found[-1]
    if use_deb:
        subprocess.run(["dpkg", "-i", str(package)], check=True, stdout=subprocess.DEVNULL)
        return Path("/usr/bin") / APP_NAME, DEB_PREFIX, package, True
    target = work / "unpacked"
    target.mkdir()
    subprocess.run(["tar", "-xzf", str(package), "-C", str(target)], check=True)
    return target / APP_NAME / APP_NAME, target / APP_NAME, package, False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--deb", help="install this .deb with dpkg (root)")
    source.add_argument("--tarball", help="unpack this .tar.gz into a fresh folder")
    parser.add_argument("--display", choices=("xvfb", "offscreen"), default="offscreen")
    parser.add_argument("--repeats", type=int, default=5, help="start-up launches to time")
    parser.add_argument("--keep", action="store_true", help="leave the .deb installed")
    parser.add_argument("--report", help="write the results as JSON here")
    parser.add_argument("--shots", help="keep the screenshots in this folder")
    args = parser.parse_args()
    if not shutil.which("unshare"):
        raise SystemExit("unshare (util-linux) is needed to cut the network.")
    with tempfile.TemporaryDirectory(prefix="wb-check-") as tmp:
        work = Path(tmp)
        launcher, app_dir, package, by_dpkg = install(args, work)
        try:
            return check(args, work, launcher, app_dir, package, by_dpkg)
        finally:
            if by_dpkg and not args.keep:
                subprocess.run(["dpkg", "-r", "sequence-workbench"], stdout=subprocess.DEVNULL)


def check(args, work: Path, launcher: Path, app_dir: Path, package: Path, by_dpkg: bool) -> int:
    home = work / "home"
    home.mkdir()
    out = work / "logs"
    out.mkdir()
    shots = Path(args.shots) if args.shots else out
    shots.mkdir(parents=True, exist_ok=True)
    resources = app_dir / "_internal" / "resources"
    sizes = {"package_bytes": package.stat().st_size, "unpacked_bytes": folder_size(app_dir)}
    print(f"{package.name}: {sizes['package_bytes'] / 1e6:.0f} MB package, "
          f"{sizes['unpacked_bytes'] / 1e6:.0f} MB unpacked at {app_dir}"
          f"{' (installed with dpkg)' if by_dpkg else ''}", flush=True)
    with virtual_display(args.display) as platform_env:
        env = fresh_env(home, platform_env, path=empty_path_dir(work))
        checker = Checker(launcher, home, env, out)
        if not checker.strace:
            print("strace is not installed: network attempts are not recorded "
                  "(apt-get install strace); the namespace still has no network.")
        if by_dpkg:
            desktop = Path("/usr/share/applications/sequence-workbench.desktop")
            checker.record("deb-files", desktop.exists() and launcher.resolve().exists(),
                           f"{launcher} -> {launcher.resolve()}, {desktop} present: "
                           f"{desktop.exists()}")
        checker.check_version()
        checker.check_window(shots)
        checker.check_refusals(resources)
        checker.check_startup(args.repeats)
        run = checker.check_training(resources)
        if run is not None:
            checker.check_generation("generate-trained", run)
        checker.check_recipes(resources)
        checker.check_vectors(resources)
        samples = find_sample_models(resources)
        for index, sample in enumerate(samples):
            checker.check_generation(f"generate-sample-{index + 1}", sample)
        if not samples:
            print("[--] no sample models under resources/ yet (issue 13 adds them)")
        checker.record("no-network", not checker.internet,
                       f"{len(checker.internet)} internet attempts "
                       f"{checker.internet[:5]}; local sockets: {sorted(checker.local)[:6]}")
    report = {"package": str(package), **sizes, "display": args.display,
              "load_average": os.getloadavg(), "results": checker.results,
              "sample_models": [str(s) for s in samples]}
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=2))
    failed = [r["check"] for r in checker.results if not r["ok"]]
    print(f"\n{len(checker.results) - len(failed)} passed, {len(failed)} failed"
          + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
