"""Where a file dialog opens: the folder the user last chose for that kind of file, else the
folder the app ships such files in (resources/recipes, resources/models...).

Every open dialog started in the working directory (an empty "" start folder), so a newcomer
opening a recipe saw their home or the source tree instead of the shipped recipes (issue 31,
defect 9). The last folder is kept for the session, per kind, so a class that opened a recipe
from a USB stick finds the stick again for the next one.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core.resources import resource_path

# kind -> the shipped folder its dialog starts in before the user chose one
SHIPPED = {
    "recipe": "recipes",
    "checkpoint": "models",
    "vectors": "models",
    "corpus": "corpora",
    "pairs": "datasets",
}
_last: dict[str, str] = {}


def start_folder(kind: str) -> str:
    """The folder a dialog for `kind` files opens in ('' = Qt's default, when none exists)."""
    last = _last.get(kind, "")
    if last and Path(last).is_dir():
        return last
    shipped = SHIPPED.get(kind)
    if shipped:
        try:
            folder = resource_path(shipped)
        except (FileNotFoundError, OSError):
            return ""
        if Path(folder).is_dir():
            return str(folder)
    return ""


def remember(kind: str, path: str) -> str:
    """Note the folder of a chosen `path` (a file, or a folder itself) for the next dialog of
    `kind`; returns `path` so a caller can write `return remember(kind, path)`."""
    if path:
        chosen = Path(path)
        _last[kind] = str(chosen if chosen.is_dir() else chosen.parent)
    return path
