"""The plots' ink: near-black titles, axis lines and tick text on the white plot backgrounds.

pyqtgraph draws titles and axes in its default foreground, a light grey (150, 150, 150) made
for dark backgrounds; on our white plots titles and tick labels were hard to read on a laptop
and unreadable on a projector (issue 31, item 6). Every plot item takes the foreground when it
is made, so this is set once, before any plot exists: on import (`widgets/boxes.py`, which
every plot module and the main window import, imports it).
"""

from __future__ import annotations

import pyqtgraph as pg

INK = "#1a1a1a"  # titles, axis lines, tick text: contrast 17:1 on white (WCAG AAA)


def apply() -> None:
    pg.setConfigOption("foreground", INK)


apply()
