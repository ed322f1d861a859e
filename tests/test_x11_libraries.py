"""A Linux machine without Qt's X11 libraries: the app names the packages to install instead of
letting Qt abort (issue 35 item 1). A missing library is made real, not mocked: a copy of
PySide6's xcb plugin whose link to libxcb-cursor asks for a version no system has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.app import x11_libraries as x11

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's X11")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def broken_plugin(tmp_path: Path) -> Path:
    real = x11.find_plugin()
    if real is None:
        pytest.skip("this PySide6 has no xcb plugin")
    qt = tmp_path / "Qt"
    (qt / "plugins" / "platforms").mkdir(parents=True)
    (qt / "lib").symlink_to(real.parents[2] / "lib")  # its RUNPATH $ORIGIN/../../lib finds Qt
    data = real.read_bytes()
    assert data.count(b"libxcb-cursor.so.0\0") == 1
    copy = qt / "plugins" / "platforms" / "libqxcb.so"
    copy.write_bytes(data.replace(b"libxcb-cursor.so.0\0", b"libxcb-cursor.so.9\0"))
    return copy


def test_the_installed_plugin_loads_here():
    plugin = x11.find_plugin()
    assert plugin is not None and plugin.name == "libqxcb.so"
    assert x11.missing_libraries(plugin) is None


def test_a_missing_library_is_named_with_its_packages(broken_plugin: Path):
    missing = x11.missing_libraries(broken_plugin)
    assert missing is not None
    assert missing.libraries == ["libxcb-cursor.so.9"]
    assert missing.debian == ["libxcb-cursor0"] and missing.fedora == ["xcb-util-cursor"]
    text = missing.message()
    assert "sudo apt install libxcb-cursor0" in text
    assert "sudo dnf install xcb-util-cursor" in text


def test_without_ldd_the_loaders_message_names_the_library(broken_plugin, monkeypatch):
    monkeypatch.setattr(x11, "ldd_not_found", lambda library: [])
    missing = x11.missing_libraries(broken_plugin)
    assert missing.libraries == ["libxcb-cursor.so.9"] and missing.debian == ["libxcb-cursor0"]


def test_an_unknown_library_is_listed_as_such(broken_plugin, monkeypatch):
    def fail(path):
        raise OSError("libweird.so.3: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(x11, "ldd_not_found", lambda library: [])
    missing = x11.missing_libraries(broken_plugin, load=fail)
    assert missing.unknown == ["libweird.so.3"] and missing.debian == []
    assert "Not known here: libweird.so.3" in missing.message()
    assert "apt install" not in missing.message()


@pytest.mark.parametrize(("env", "xcb"), [
    ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":1"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({"QT_QPA_PLATFORM": "xcb:display=:3"}, True),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, False),
    ({"DISPLAY": ":0"}, True),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"XDG_SESSION_TYPE": "wayland"}, False),
])
def test_which_platform_is_checked(env, xcb):
    assert x11.platform_is_xcb(env) is xcb


def test_the_app_prints_the_packages_and_exits(broken_plugin, tmp_path):
    """The real entry point, with Qt's X11 platform and the broken plugin: exit 1 and the apt
    and dnf lines, before any QApplication (Qt would abort with its own one-line message)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    code = ("import sys; from pathlib import Path; from workbench.app import x11_libraries as x;"
            f"x.find_plugin = lambda: Path({str(broken_plugin)!r});"
            "from workbench.app.main import main; sys.exit(main(['--no-default-corpus']))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "sudo apt install libxcb-cursor0" in done.stderr
    assert "sudo dnf install xcb-util-cursor" in done.stderr
    assert "QApplication" not in done.stderr and "could not connect" not in done.stderr.lower()


def test_no_fonts_or_no_fontconfig_setup_is_named_with_its_packages(tmp_path):
    """A minimal Debian with the X libraries but no fonts opened a window of empty boxes."""
    config, fonts = tmp_path / "fonts.conf", tmp_path / "fonts"
    assert x11.fonts_missing(config, (str(fonts),), environ={})  # neither
    config.write_text("<fontconfig/>")
    assert x11.fonts_missing(config, (str(fonts),), environ={})  # no font file
    (fonts / "truetype").mkdir(parents=True)
    (fonts / "truetype" / "DejaVuSans.ttf").write_bytes(b"font")
    assert not x11.fonts_missing(config, (str(fonts),), environ={})
    assert not x11.fonts_missing(tmp_path / "none", (), environ={"FONTCONFIG_FILE": "x"})
    message = x11.with_font_packages(None, Path("libqxcb.so")).message()
    assert "cannot show text" in message
    assert "sudo apt install fontconfig fonts-dejavu-core" in message
    assert "sudo dnf install fontconfig dejavu-sans-fonts" in message


def test_missing_libraries_and_fonts_make_one_apt_line(broken_plugin):
    both = x11.with_font_packages(x11.missing_libraries(broken_plugin), broken_plugin)
    assert "sudo apt install libxcb-cursor0 fontconfig fonts-dejavu-core" in both.message()


def test_offscreen_checks_qts_own_libraries(tmp_path, monkeypatch):
    """Offscreen (and Wayland) do not load the xcb plugin, but every platform loads Qt Widgets,
    Gui and Core: a bare Debian 13 ended `--screenshot` in a raw ImportError of libglib. A copy
    of libQt6Widgets whose link to libglib asks for a version no system has stands for it."""
    real = x11.find_plugin(x11.WIDGETS)
    if real is None:
        pytest.skip("this PySide6 has no Widgets library")
    data = real.read_bytes()
    needed = next((n for n in (b"libglib-2.0.so.0\0", b"libQt6Gui.so.6\0") if n in data), None)
    if needed is None:
        pytest.skip("this Widgets library links neither libglib nor Gui by name")
    broken = tmp_path / "libQt6Widgets.so.6"
    broken.write_bytes(data.replace(needed, needed[:-2] + b"9\0"))  # the same length
    monkeypatch.setattr(x11, "find_plugin", lambda relative=x11.PLUGIN: broken)
    import io

    out = io.StringIO()
    assert not x11.check_before_window({"QT_QPA_PLATFORM": "offscreen"}, stream=out)
    text = out.getvalue()
    assert "Qt's libraries need system libraries" in text
    assert "renders offscreen" not in text  # offscreen is what failed
