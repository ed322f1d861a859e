"""The recent-corpora list, kept in QSettings so it survives restarts."""

from __future__ import annotations

from PySide6.QtCore import QSettings

KEY = "corpus/recent"
LIMIT = 10


class RecentFiles:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def paths(self) -> list[str]:
        value = self.settings.value(KEY, [])
        if isinstance(value, str):  # QSettings returns a bare string for a one-item list
            value = [value]
        return [str(v) for v in (value or [])]

    def add(self, path: str) -> None:
        paths = [p for p in self.paths() if p != path]
        paths.insert(0, path)
        self.settings.setValue(KEY, paths[:LIMIT])
