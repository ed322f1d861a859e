"""Start-up stays fast: building the whole window imports neither torch nor gensim."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.app.window import build_window
window = build_window(QSettings(sys.argv[1], QSettings.Format.IniFormat))
window.show()
app.processEvents()
heavy = sorted(m for m in ("torch", "gensim", "umap", "openTSNE") if m in sys.modules)
print("HEAVY:" + ",".join(heavy))
window.close()
"""


def test_window_builds_without_torch_or_gensim(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "s.ini")],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "HEAVY:\n" in result.stdout or result.stdout.strip().endswith("HEAVY:"), result.stdout
