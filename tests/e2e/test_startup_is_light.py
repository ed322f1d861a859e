"""Start-up stays fast: the window is built and shown before torch or gensim load, and they
load (if a panel needs them) on a worker thread, never on the GUI thread."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import sys, threading
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
import builtins
gui_thread_imports = []
real_import = builtins.__import__
def watching_import(name, *args, **kwargs):
    on_gui = threading.current_thread() is threading.main_thread()
    if on_gui and name.split(".")[0] in ("torch", "gensim"):
        gui_thread_imports.append(name)
    return real_import(name, *args, **kwargs)
builtins.__import__ = watching_import
from workbench.app.window import build_window, settle
window = build_window(QSettings(sys.argv[1], QSettings.Format.IniFormat))
window.show()
app.processEvents()
before = sorted(m for m in ("torch", "gensim") if m in sys.modules)
settle(window, 60)
print("AT_SHOW:" + ",".join(before))
print("GUI_THREAD:" + ",".join(sorted(set(gui_thread_imports))))
window.close()
"""


def test_window_shows_before_torch_and_never_imports_it_on_the_gui_thread(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "s.ini")],
        env=env, capture_output=True, text=True, timeout=180,
    )
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(":", 1) for line in result.stdout.splitlines() if ":" in line)
    assert "gensim" not in lines["AT_SHOW"]
    assert lines["GUI_THREAD"] == "", lines
