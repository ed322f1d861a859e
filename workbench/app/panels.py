"""The panels the window shows, in dock order. Each issue adds its panels here."""

from __future__ import annotations

from workbench.qt.panel import Panel


def panel_types() -> list[type[Panel]]:
    from workbench.qt.panels.corpus import CorpusPanel

    return [CorpusPanel]
