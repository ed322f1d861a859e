"""Entry point: `workbench [PATH]`, `workbench --follow RUN_DIR`, `workbench --screenshot out.png
[--panel NAME]`, `workbench --list-panels`, `workbench --version`, and the headless
`workbench train RECIPE`, `workbench generate CHECKPOINT`, `workbench vectors CORPUS`,
`workbench evaluate MODEL DATA` and `workbench predict MODEL INPUT…`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from workbench import __version__
from workbench.app.cli_types import finite_float

SCREENSHOT_TIMEOUT_S = 120
SCREENSHOT_QUIET_S = 1.5  # longer than a panel's own delay before it queries (architecture: 0.5 s)
HEADLESS_COMMANDS = {"train": "workbench.app.train_cli", "generate": "workbench.app.generate_cli",
                     "vectors": "workbench.app.vectors_cli",
                     "evaluate": "workbench.app.evaluate_cli",
                     "predict": "workbench.app.predict_cli",
                     "export": "workbench.app.export_cli"}  # a run's curves as CSV, a HF folder


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Sequence Workbench: train, inspect and write with sequence models of text. "
        "Run `workbench train RECIPE` for headless training, `workbench generate "
        "CHECKPOINT` to write with a trained model, `workbench vectors CORPUS` to train word "
        "vectors, `workbench evaluate MODEL DATA` to score a model on a file, `workbench "
        "predict MODEL INPUT…` to translate, classify, tag or fill a blank.",
    )
    parser.add_argument("path", nargs="?", help="a corpus file or folder to open")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render offscreen to a PNG, exit")
    parser.add_argument("--panel", metavar="NAME", help="with --screenshot: only this panel")
    parser.add_argument("--size", metavar="WxH", default="1366x768",
                        help="with --screenshot: the window's size (default 1366x768)")
    parser.add_argument("--perspective", metavar="NAME",
                        help="start in this perspective (Data, Embeddings, 'Model & training', "
                        "Inspect, Generate, 'All panels')")
    parser.add_argument("--zoom", type=finite_float, metavar="F",
                        help="text and plot scale (1 = normal; presentation mode is 1.6)")
    parser.add_argument("--list-panels", action="store_true", help="print the panel names")
    parser.add_argument("--follow", metavar="RUN_DIR", action="append",
                        help="watch a run folder another process writes (a headless or "
                        "torchrun run, a folder synced from a server); may be repeated")
    parser.add_argument("--model", metavar="CHECKPOINT",
                        help="open a trained model for the inspectors and consoles (a run "
                        "folder, a checkpoint's .json or .safetensors, a sample model)")
    parser.add_argument(
        "--no-default-corpus", action="store_true", help="start without loading a corpus"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in HEADLESS_COMMANDS:  # each loads only what it needs, no Qt
        import importlib

        return importlib.import_module(HEADLESS_COMMANDS[argv[0]]).main(argv[1:])
    args = build_parser().parse_args(argv)
    if args.list_panels:
        return list_panels()
    if args.panel and not args.screenshot:
        print("--panel only applies with --screenshot", file=sys.stderr)
        return 2
    try:
        args.size = tuple(int(n) for n in args.size.lower().split("x"))
        assert len(args.size) == 2 and min(args.size) > 0
    except (ValueError, AssertionError):
        print("--size takes WIDTHxHEIGHT, for example 1366x768", file=sys.stderr)
        return 2
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.panel:  # refused before the window (and torch) loads, not half a minute later
        from workbench.app.panels import panel_types

        names = [panel_type.name for panel_type in panel_types()]
        if args.panel not in names:
            print(f"Unknown panel '{args.panel}'. Panels: {', '.join(names)}", file=sys.stderr)
            return 2
    return run_gui(args)


def list_panels() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from workbench.app.panels import panel_types

    for panel_type in panel_types():
        print(f"{panel_type.name:<14} {panel_type.title}")
    return 0


def run_gui(args: argparse.Namespace) -> int:
    from workbench.app.x11_libraries import check_before_window

    if not check_before_window():  # a fresh Linux without Qt's X11 libraries: say what to install
        return 1
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from workbench.app.first_paint import after_first_paint, report_ready
    from workbench.app.window import build_window

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("SequenceWorkbench")
    app.setApplicationName("Sequence Workbench")
    app.setApplicationVersion(__version__)
    scratch = None
    if args.screenshot:  # a first start's look, and the user's layouts and zoom stay as they are
        import tempfile

        from PySide6.QtCore import QSettings

        scratch = tempfile.TemporaryDirectory(prefix="workbench-screenshot-")
        settings = QSettings(str(Path(scratch.name, "settings.ini")), QSettings.Format.IniFormat)
        window = build_window(settings)
    else:
        window = build_window()
    path = args.path
    if path is None and not args.no_default_corpus and not args.follow:
        from workbench.core.resources import default_corpus_path

        path = str(default_corpus_path())

    def open_what_was_asked() -> None:
        for run_dir in args.follow or ():
            window.controller.follow_run(str(Path(run_dir).expanduser()))
        if args.follow:
            window.show_followed_runs(chosen_perspective=bool(args.perspective))
        if path is not None:
            window.open_corpus(str(Path(path).expanduser()))
        if args.model:
            window.open_model(str(Path(args.model).expanduser()))

    if args.zoom:
        window.zoom.set_factor(args.zoom)
    if args.screenshot:
        window.setWindowState(Qt.WindowState.WindowNoState)  # the size asked, not maximised
        window.resize(*args.size)
    if args.perspective and not window.perspectives.switch(args.perspective):
        names = ", ".join(p.name for p in window.perspectives.available())
        print(f"Unknown perspective '{args.perspective}'. Perspectives: {names}", file=sys.stderr)
        window.close()
        return 2
    if args.screenshot:
        window.show()
        open_what_was_asked()
        # a followed run's checkpoint still loading when the window closes (torch's import
        # under load outlasts the shutdown's wait) left its thread running: SIGABRT at exit
        return exit_without_abandoned_threads(
            take_screenshot(app, window, args.screenshot, args.panel))

    def after_paint() -> None:
        preload_heavy_modules()
        open_what_was_asked()
        window.show_welcome()  # the first start offers the lessons (until the student unticks it)

    from workbench.qt.quit_signals import close_on_signals

    report_ready(window)
    after_first_paint(window, after_paint)
    window.show()
    restore = close_on_signals(window)  # SIGTERM closes like the close button: work is saved
    try:
        code = app.exec()
    finally:
        restore()
    return exit_without_abandoned_threads(code)


def exit_without_abandoned_threads(code: int) -> int:
    """A job thread still inside a step it cannot leave (a gensim epoch) was given up on when
    the window closed (after at most SHUTDOWN_WAIT_MS). Python's exit would destroy its running
    QThread, which aborts the process: leave at once instead (settings are already synced)."""
    from workbench.qt.job_runner import abandoned_threads

    if abandoned_threads():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def preload_heavy_modules() -> None:
    """Import torch on a daemon thread once the window shows, so the first model summary or
    training start does not wait for it (and start-up does not either). The scipy parts the
    panels use on the GUI thread (the curves' EMA filter, the map's k-d tree) come first: they
    cost ~0.5 s to import, which the window no longer pays before it shows. Jobs wait for that
    part (`core/preload.py` says why)."""
    import threading

    from workbench.core import preload

    if not preload.begin():
        return

    def load() -> None:
        try:
            import scipy.signal  # noqa: F401
            import scipy.spatial  # noqa: F401
        finally:
            preload.scipy_imported()
        preload.load_torch_libraries()  # the C++ part, without holding the GIL
        import torch  # noqa: F401

        # What the first training job imports on its thread after torch (~0.25 s, in part
        # pydantic building its validators with the GIL held): it froze the window for up to
        # 137 ms in the first second after Train (the soak of 26 Nov 04:10).
        import workbench.core.training_loop.recipe_run  # noqa: F401

    threading.Thread(target=load, name="preload-torch", daemon=True).start()


def take_screenshot(app, window, out: str, panel: str | None) -> int:
    from workbench.app.window import settle

    # a panel that was hidden describes itself a moment after it shows (the Architecture panel
    # 0.5 s after): wait longer than that, or its screenshot says "Describing…"
    settle(window, timeout_s=SCREENSHOT_TIMEOUT_S, quiet_s=SCREENSHOT_QUIET_S)
    if panel:
        # Float the panel at a readable size: tabbed in the layout it may be squeezed.
        widget = window.docks[panel]
        widget.setFloating(True)
        widget.resize(1280, 860)
        window.show_panel(panel)
        settle(window, timeout_s=SCREENSHOT_TIMEOUT_S, quiet_s=SCREENSHOT_QUIET_S)
    else:
        widget = window
    ok = widget.grab().save(out)
    window.close()
    if not ok:
        print(f"Could not write {out}", file=sys.stderr)
        return 1
    print(out)
    return 0
