"""Before the window opens on Linux: does Qt's X11 platform plugin find its system libraries?

PySide6 ships Qt but not the X11 libraries Qt's `xcb` plugin links against (libxcb-cursor0,
libxcb-icccm4, libxkbcommon-x11-0, ...). A fresh Debian, or a stock Ubuntu desktop, lacks some,
and Qt then aborts with one line about one of them. This check loads the plugin the way Qt
would, before Qt does (the libraries it loads are the ones Qt loads next anyway, so it costs
about nothing when all is well); only when that fails does it ask `ldd` for every missing
library and name the packages that hold them, for apt (Debian, Ubuntu) and dnf (Fedora).

No Qt is imported here: a missing libEGL or libfontconfig already breaks `import
PySide6.QtWidgets`, so this runs first.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PLUGIN = Path("Qt", "plugins", "platforms", "libqxcb.so")
# What every Qt platform loads (offscreen too): Widgets pulls in Gui and Core, and with them
# libglib, libEGL, libfontconfig. On a bare machine `--screenshot` ended in a raw ImportError
# of libglib-2.0.so.0 (a fresh Debian 13, packaging/check_wheel_fresh_python.py).
WIDGETS = Path("Qt", "lib", "libQt6Widgets.so.6")

# soname stem (the part before ".so") -> (Debian/Ubuntu package, Fedora package). The libraries
# Qt 6's xcb plugin and Qt Gui need from the system (Qt's "X11 requirements" page, checked
# with `ldd` against PySide6 6.11's plugin in a minimal Debian made with debootstrap).
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-util": ("libxcb-util1", "xcb-util"),
    "libxcb-image": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-randr": ("libxcb-randr0", "libxcb"),
    "libxcb-shm": ("libxcb-shm0", "libxcb"),
    "libxcb-sync": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render": ("libxcb-render0", "libxcb"),
    "libxcb-shape": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb": ("libxcb-xkb1", "libxcb"),
    "libxcb-xinput": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx": ("libxcb-glx0", "libxcb"),
    "libxcb": ("libxcb1", "libxcb"),
    "libxkbcommon-x11": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon": ("libxkbcommon0", "libxkbcommon"),
    "libX11-xcb": ("libx11-xcb1", "libX11-xcb"),
    "libX11": ("libx11-6", "libX11"),
    "libXau": ("libxau6", "libXau"),
    "libXdmcp": ("libxdmcp6", "libXdmcp"),
    "libSM": ("libsm6", "libSM"),
    "libICE": ("libice6", "libICE"),
    "libGL": ("libgl1", "libglvnd-glx"),
    "libGLX": ("libglx0", "libglvnd-glx"),
    "libEGL": ("libegl1", "libglvnd-egl"),
    "libOpenGL": ("libopengl0", "libglvnd-opengl"),
    "libGLdispatch": ("libglvnd0", "libglvnd"),
    "libfontconfig": ("libfontconfig1", "fontconfig"),
    "libfreetype": ("libfreetype6", "freetype"),
    "libdbus-1": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0": ("libglib2.0-0", "glib2"),
}
# Text needs fonts and fontconfig's setup: a minimal Debian has neither, and with the libraries
# alone the window opened with every letter an empty box (packaging/check_fresh_debian.py)
FONT_PACKAGES = (("fontconfig", "fontconfig"), ("fonts-dejavu-core", "dejavu-sans-fonts"))
FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
FONT_FILES = (".ttf", ".otf", ".ttc", ".pfb", ".pcf", ".gz", ".otb", ".woff2")
# Everything the xcb platform needs, for a README's one line (the .deb's Depends says the same).
ALL_DEBIAN = sorted({debian for debian, _ in (*PACKAGES.values(), *FONT_PACKAGES)})
ALL_FEDORA = sorted({fedora for _, fedora in (*PACKAGES.values(), *FONT_PACKAGES)})
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)
CANNOT_OPEN = re.compile(r"(\S+\.so[.\d]*): cannot open shared object file")


@dataclass
class MissingLibraries:
    plugin: Path
    libraries: list[str]
    error: str = ""  # the loader's own words
    debian: list[str] = field(default_factory=list)
    fedora: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def message(self) -> str:
        xcb = self.plugin.name == PLUGIN.name  # else Qt's own libraries (any platform)
        needs = "Qt's X11 platform plugin needs" if xcb else "Qt's libraries need"
        if self.libraries or self.error:
            lines = [f"Sequence Workbench cannot open its window: {needs} system libraries "
                     "this machine lacks:",
                     "  " + (", ".join(self.libraries) or self.error)]
        else:
            lines = ["Sequence Workbench cannot show text: this machine has no fonts that "
                     "fontconfig can find (no /etc/fonts/fonts.conf, or no font files)."]
        if self.debian:
            lines += ["Install them, then start the workbench again:",
                      "  Debian, Ubuntu:  sudo apt install " + " ".join(self.debian),
                      "  Fedora:          sudo dnf install " + " ".join(self.fedora)]
        if self.unknown:
            lines.append("Not known here: " + ", ".join(self.unknown) + f" (needed by "
                         f"{self.plugin}; your distribution's package search finds the "
                         "package that holds each).")
        lines.append("(Without a display, `workbench train`, `generate` and `vectors` work"
                     + (", and --screenshot renders offscreen.)" if xcb else ".)"))
        return "\n".join(lines)


def platform_is_xcb(environ=os.environ) -> bool:
    """Will Qt use its X11 platform? Only xcb (or nothing chosen in an X session) is
    checked: offscreen, wayland and the rest have other needs."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0].strip() == "xcb"
    # Qt 6 prefers Wayland in a Wayland session (and falls back to xcb itself)
    return not (environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland")


def find_plugin(relative: Path = PLUGIN) -> Path | None:
    """Qt's xcb plugin (or another of its files) inside PySide6 (a source install, a wheel or
    the frozen bundle), found without importing PySide6."""
    roots = []
    if getattr(sys, "_MEIPASS", None):
        roots.append(Path(sys._MEIPASS, "PySide6"))
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        roots += [Path(p) for p in spec.submodule_search_locations]
    for root in roots:
        if (root / relative).is_file():
            return root / relative
    # the bundle keeps Qt's libraries at its top, beside the app's own
    if getattr(sys, "_MEIPASS", None) and (Path(sys._MEIPASS) / relative.name).is_file():
        return Path(sys._MEIPASS) / relative.name
    return None


def fonts_missing(config: Path = Path("/etc/fonts/fonts.conf"),
                  folders: tuple[str, ...] = FONT_FOLDERS, environ=os.environ) -> bool:
    """No fontconfig setup, or not one font file in the usual folders (a FONTCONFIG_FILE of
    one's own is trusted)."""
    if environ.get("FONTCONFIG_FILE") or environ.get("FONTCONFIG_PATH"):
        return False
    if not config.is_file():
        return True
    for folder in folders:
        root = Path(folder).expanduser()
        if root.is_dir() and any(p.suffix.lower() in FONT_FILES for p in root.rglob("*")):
            return False
    return True


def with_font_packages(found: MissingLibraries | None, plugin: Path) -> MissingLibraries:
    """`found` (or an empty list of libraries) with the font packages added."""
    found = found or MissingLibraries(plugin, [])
    for debian, fedora in FONT_PACKAGES:
        found.debian += [debian] if debian not in found.debian else []
        found.fedora += [fedora] if fedora not in found.fedora else []
    return found


def missing_libraries(plugin: Path, load=ctypes.CDLL) -> MissingLibraries | None:
    """None when the plugin loads (the usual case, and the cheap one), else what is missing."""
    try:
        load(str(plugin))
        return None
    except OSError as exc:
        error = str(exc)
    names = ldd_not_found(plugin) or CANNOT_OPEN.findall(error)
    found = MissingLibraries(plugin, sorted(set(names)), error)
    for name in found.libraries:
        packages = PACKAGES.get(name.split(".so")[0])
        if packages is None:
            found.unknown.append(name)
            continue
        for chosen, package in zip((found.debian, found.fedora), packages, strict=True):
            if package not in chosen:
                chosen.append(package)
    return found


def ldd_not_found(library: Path) -> list[str]:
    """Every library `ldd` cannot find for `library`, directly or through others ([] when
    ldd is absent: the loader's message then names the first one)."""
    import shutil  # only on failure: start-up does not pay for them
    import subprocess

    ldd = shutil.which("ldd") or next((p for p in ("/usr/bin/ldd", "/bin/ldd")
                                       if os.access(p, os.X_OK)), None)
    if ldd is None:
        return []
    try:
        done = subprocess.run([ldd, str(library)], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return NOT_FOUND.findall(done.stdout)


def check_before_window(environ=os.environ, stream=None) -> bool:
    """True when the window may open; False after printing what to install. Under xcb the
    platform plugin is checked (it needs the most); under any other platform on Linux
    (offscreen, wayland) Qt's Widgets library, which every platform loads."""
    if not sys.platform.startswith("linux"):
        return True
    plugin = find_plugin() if platform_is_xcb(environ) else find_plugin(WIDGETS)
    if plugin is None:  # a PySide6 without it: Qt says so itself
        return True
    missing = missing_libraries(plugin)
    if fonts_missing():
        missing = with_font_packages(missing, plugin)
    if missing is None:
        return True
    print(missing.message(), file=stream or sys.stderr, flush=True)
    return False
