"""`python -m workbench.qt.gallery [NAME] [--screenshot OUT.png] [--size WxH] [--zoom F]`.

Without NAME it lists the panels. With NAME it opens that panel in a window of its own over the
fake backend, staged with canned data (gallery/stages.py); with --screenshot it waits until the
panel's jobs and queries are over, writes the PNG and exits.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from workbench.qt.gallery.stages import ENTRIES, Entry, scratch_folder

if TYPE_CHECKING:
    from workbench.core.api import Backend


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workbench.qt.gallery",
                                     description="One panel of the window over canned data.")
    parser.add_argument("name", nargs="?", help="the panel (omit to list them)")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render to a PNG and exit")
    parser.add_argument("--size", metavar="WxH", type=_size, help="the panel's size")
    parser.add_argument("--zoom", type=float, help="the window's zoom (1.6 for a projector)")
    return parser


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size such as 1100x700") from None
    return width, height


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.name is None:
        for name, entry in ENTRIES.items():
            print(f"{name:<12} {entry.panel_type.title}")
        return 0
    if args.name not in ENTRIES:
        print(f"No panel '{args.name}'. Panels: {', '.join(ENTRIES)}", file=sys.stderr)
        return 2
    scratch = scratch_folder()
    try:
        return show(ENTRIES[args.name], scratch, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def build(entry: Entry, scratch: Path, size: tuple[int, int] | None = None,
          zoom: float | None = None):
    """The entry's panel on its own controller over the fake backend, shown and staged."""
    from PySide6.QtWidgets import QApplication

    from workbench.qt import plot_theme
    from workbench.qt.controller import WorkbenchController
    from workbench.qt.widgets import probe_bar

    QApplication.instance() or QApplication(sys.argv[:1])
    plot_theme.apply()
    probe_bar.AUTO_INTERVAL_S = 0.0  # the staged snapshot is probed at once
    # the fake implements every Protocol of core/api.py (tests/qt/test_backend_protocols.py)
    controller = WorkbenchController(cast("Backend", entry.backend(scratch)))
    panel = entry.panel_type(controller)
    panel.setWindowTitle(f"{panel.title} · gallery")
    panel.resize(*(size or entry.size))
    if zoom:  # the window's own zoom (text, plots' fonts and pens), kept in scratch
        from PySide6.QtCore import QSettings

        from workbench.qt.zoom import Zoom

        settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
        Zoom(panel, settings).set_factor(zoom)  # a child of the panel, alive as long as it
    panel.show()
    if entry.stage is not None:
        entry.stage(panel)
    return panel


def show(entry: Entry, scratch: Path, args: argparse.Namespace) -> int:
    from PySide6.QtWidgets import QApplication

    panel = build(entry, scratch, args.size, args.zoom)
    app = QApplication.instance()
    assert app is not None  # build() made it
    try:
        if not args.screenshot:
            return app.exec()
        if not settle(app, panel.controller, lambda: entry.shown(panel)):
            print(f"{args.name}: after 60 s a job still ran or the panel did not show its "
                  "canned data", file=sys.stderr)
        if not panel.grab().save(args.screenshot):
            print(f"Could not write {args.screenshot}", file=sys.stderr)
            return 1
        print(args.screenshot)
        return 0
    finally:
        panel.close()
        panel.controller.shutdown()


def settle(app, controller, ready: Callable[[], object] = lambda: True,
           timeout_s: float = 60.0, quiet_s: float = 0.5) -> bool:
    """Process events until no job or query has run for `quiet_s` (the panels' redraw timers
    and follow-up probes fire within it) and the panel shows what it was staged with (the
    Architecture panel describes itself on a timer after it shows); False after `timeout_s`."""
    from PySide6.QtCore import QEvent

    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        app.processEvents()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        if controller.jobs.busy or controller.query_queue.busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > quiet_s and ready():
            return True
        time.sleep(0.01)
    return False


if __name__ == "__main__":
    sys.exit(main())
