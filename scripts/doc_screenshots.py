"""Make the guide's screenshots from `workbench --screenshot`, or say which are stale.

    .venv/bin/python scripts/doc_screenshots.py            # render every shot into docs/images/
    .venv/bin/python scripts/doc_screenshots.py --only data
    .venv/bin/python scripts/doc_screenshots.py --check    # list shots made from older code
    .venv/bin/python scripts/doc_screenshots.py --runs /tmp/demo-runs   # training curves shown

The training shots show the runs of a runs folder (`--runs`, else the user's own): make one
with `scripts/make_demo_runs.py`, which trains a short run of every task. The inspector and
console shots open a shipped sample model (`workbench --model`).

The panel shots (`gallery-*`) come from the panel gallery, `python -m workbench.qt.gallery NAME`:
one panel over the fake backend's canned data, the same data the Qt tests assert on.

The guide's pictures are never kept by hand: each one is a command line below. Next to them,
`docs/images/shots.json` records a fingerprint of what the window draws from (the Qt room, the
help texts, the lessons and the shipped corpora) at the time each picture was made, so
`--check` can say which pictures show an older window. The fingerprint is a hash of those files'
contents, not their dates, so a fresh clone agrees with the machine that made the pictures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
RECORD = IMAGES / "shots.json"
# What a screenshot of the window depends on: change any of these and the pictures may differ.
DRAWN_FROM = ("workbench/qt", "workbench/app/window.py", "workbench/app/panels.py",
              "resources/help", "resources/lessons")

# name: the arguments after `workbench --screenshot OUT.png`
SHOTS: dict[str, list[str]] = {
    "data": ["--perspective", "Data", "--size", "1366x768"],
    "embeddings": ["--perspective", "Embeddings", "--size", "1366x768"],
    "model-and-training": ["--perspective", "Model & training", "--size", "1366x768"],
    "inspect": ["--perspective", "Inspect", "--size", "1366x768",
                "--model", "resources/models/char-lstm"],
    "attention": ["--panel", "attention", "--model", "resources/models/char-transformer"],
    "generate": ["--perspective", "Generate", "--size", "1366x768",
                 "--model", "resources/models/char-lstm"],
    "presentation": ["--perspective", "Model & training", "--size", "1920x1080",
                     "--zoom", "1.6"],
}
# name: the arguments of `python -m workbench.qt.gallery` (one panel over canned data): views
# whose state takes a trained classifier or a long session to reach in the window
GALLERY_SHOTS: dict[str, list[str]] = {
    "gallery-confusion": ["confusion", "--size", "1100x640"],
    "gallery-training": ["training", "--size", "1300x700"],
}
ALL_SHOTS = [*SHOTS, *GALLERY_SHOTS]


def fingerprint() -> str:
    """A hash of every file the window draws from, in a fixed order."""
    digest = hashlib.sha256()
    for top in DRAWN_FROM:
        path = ROOT / top
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            digest.update(str(file.relative_to(ROOT)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def load_record() -> dict[str, str]:
    try:
        return json.loads(RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def render(name: str, runs: str = "") -> None:
    out = IMAGES / f"{name}.png"
    if name in GALLERY_SHOTS:
        gallery, *options = GALLERY_SHOTS[name]
        command = [sys.executable, "-m", "workbench.qt.gallery", gallery, "--screenshot",
                   str(out), *options]
    else:
        command = [sys.executable, "-m", "workbench", "--screenshot", str(out), *SHOTS[name]]
    print("  " + " ".join(command[1:]), flush=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if runs:
        env["WORKBENCH_RUNS_DIR"] = runs
    subprocess.run(command, check=True, cwd=ROOT, env=env)


def stale() -> list[str]:
    """The shots whose recorded fingerprint differs from the code's, or that are missing."""
    record, now = load_record(), fingerprint()
    return [name for name in ALL_SHOTS
            if record.get(name) != now or not (IMAGES / f"{name}.png").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list stale shots, render none")
    parser.add_argument("--only", action="append", choices=sorted(ALL_SHOTS),
                        help="render only this shot (may be repeated)")
    parser.add_argument("--runs", default="", metavar="DIR",
                        help="the runs folder the training shots show (scripts/make_demo_runs.py)")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        if old:
            print("Screenshots made from older code (run scripts/doc_screenshots.py): "
                  + ", ".join(old))
        else:
            print("Every screenshot in docs/images/ is from the current code.")
        return 0
    IMAGES.mkdir(parents=True, exist_ok=True)
    record, now = load_record(), fingerprint()
    for name in args.only or ALL_SHOTS:
        render(name, args.runs)
        record[name] = now
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
