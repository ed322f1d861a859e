"""The installer check's own logic (packaging/check_linux.py, benchmarks/bench_startup.py),
fast: the full check needs a built bundle and minutes, so it is a script, not a test."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from benchmarks.bench_startup import parse_ready_line

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_linux", ROOT / "packaging" / "check_linux.py")
check_linux = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_linux)

STRACE = """\
4242  connect(3, {sa_family=AF_UNIX, sun_path="/tmp/.X11-unix/X93"}, 110) = 0
4242  connect(9, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 110) = -1 ENOENT
4250  connect(12, {sa_family=AF_INET, sin_port=htons(443), \
sin_addr=inet_addr("1.2.3.4")}, 16) = -1 ENETUNREACH (Network is unreachable)
4251  sendto(13, "\\1\\2", 2, MSG_NOSIGNAL, {sa_family=AF_INET6, sin6_port=htons(53), \
inet_pton(AF_INET6, "::1", &sin6_addr)}, 28) = -1 ENETUNREACH
4251  sendto(14, "x", 1, 0, NULL, 0) = 1
4252  +++ exited with 0 +++
"""


def test_internet_attempts_are_told_apart_from_local_sockets():
    internet, local = check_linux.network_attempts(STRACE)
    assert len(internet) == 2
    assert "AF_INET," in internet[0] and "AF_INET6" in internet[1]
    assert len(local) == 2 and all("AF_UNIX" in line for line in local)
    assert check_linux.network_attempts(STRACE.splitlines()[0]) == ([], [STRACE.splitlines()[0]])


def test_sample_models_are_checkpoints_with_their_weights(tmp_path):
    models = tmp_path / "resources" / "models"
    (models / "lstm").mkdir(parents=True)
    (models / "lstm" / "sample.json").write_text("{}")
    (models / "lstm" / "sample.safetensors").write_bytes(b"")
    (models / "orphan.safetensors").write_bytes(b"")  # no metadata beside it: not a model
    (tmp_path / "resources" / "recipes.json").write_text("{}")  # json alone: not a model
    found = check_linux.find_sample_models(tmp_path / "resources")
    assert found == [models / "lstm" / "sample.json"]
    assert check_linux.find_sample_models(tmp_path / "absent") == []


def test_the_app_gets_a_path_with_no_python(tmp_path):
    path = check_linux.empty_path_dir(tmp_path)
    assert Path(path).is_dir() and not any(Path(path).iterdir())
    (Path(path) / "python3").write_text("#!/bin/sh\n")
    (Path(path) / "python3").chmod(0o755)
    with pytest.raises(RuntimeError, match="python3"):
        check_linux.empty_path_dir(tmp_path)


def test_ready_lines_give_seconds_since_launch_and_early_heavy_modules():
    launch = parse_ready_line("ready 1000.750000 0.900000 -", started=999.5)
    assert launch.seconds == pytest.approx(1.25) and launch.cpu_s == 0.9
    assert launch.heavy_before_show == ()
    assert parse_ready_line("ready 5 1 torch,gensim", 4).heavy_before_show == ("torch", "gensim")
    with pytest.raises(ValueError):
        parse_ready_line("garbage", 0)


slim_spec = importlib.util.spec_from_file_location(
    "slim_bundle", ROOT / "packaging" / "linux" / "slim_bundle.py")
slim_bundle = importlib.util.module_from_spec(slim_spec)
slim_spec.loader.exec_module(slim_bundle)


def test_a_library_only_dropped_binaries_needed_is_found_unreachable():
    needed = {
        "PySide6/Qt/lib/libQt6Gui.so.6": ["libfreetype.so.6", "libQt6Core.so.6"],
        "PySide6/Qt/lib/libQt6Core.so.6": ["libglib-2.0.so.0"],
        "libfreetype.so.6": ["libpng16.so.16"],
        "libpng16.so.16": [],
        "libglib-2.0.so.0": [],
        # needed only by the GTK theme the spec dropped: left behind
        "libcairo.so.2": ["libpixman-1.so.0", "libpng16.so.16"],
        "libpixman-1.so.0": [],
    }
    roots = [name for name in needed if "/" in name]
    assert slim_bundle.unreachable(needed, roots) == {"libcairo.so.2", "libpixman-1.so.0"}


def test_icu_keeps_what_qt_calls_and_drops_the_rest():
    items = ["root.res", "de.res", "coll/ucadata.icu", "coll/de.res", "zone/de.res",
             "zoneinfo64.res", "metaZones.res", "cnvalias.icu", "ibm-943_P15A-2003.cnv",
             "nfkc.nrm", "brkitr/cjdict.dict", "brkitr/word.brk", "unit/de.res", "curr/de.res",
             "lang/de.res", "region/de.res", "translit/root.res", "rbnf/de.res", "unames.icu",
             "rfc3491.spp", "confusables.cfu"]
    dropped = slim_bundle.unused_icu_items(items)
    assert dropped == items[10:]  # collation, time zones, converters, locales stay


def test_the_tarballs_documented_apt_line_is_everything_the_window_needs():
    """packaging/README.md's line for the tarball is the .deb's Depends (the module's list):
    the fresh-Debian check installs the line as written, so a package missing from it (the
    fonts were, once: every letter an empty box) is a wrong README, caught here."""
    import sys

    from workbench.app.x11_libraries import ALL_DEBIAN

    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        from check_fresh_debian import documented_apt_line
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    assert documented_apt_line() == list(ALL_DEBIAN)
    assert {"fontconfig", "fonts-dejavu-core", "libxcb-cursor0"} <= set(ALL_DEBIAN)
