"""The app's help texts, read from `resources/help/` (torch-free; teachers may edit the files).

`panels.toml` holds one table per panel name: what the panel is for, how to start, and a public
source; `getting_started.md` is the Help ▸ Getting started page, to which the panels' texts are
appended in the file's `order`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from workbench.core.files import bounded
from workbench.core.resources import resource_path


@dataclass(frozen=True)
class PanelHelp:
    name: str
    title: str
    what: str
    start: str = ""
    source: str = ""

    def markdown(self) -> str:
        # "<bos>" would read as an HTML tag in Markdown and swallow the rest of the page
        def escaped(text: str) -> str:
            return text.replace("<", "&lt;").replace(">", "&gt;")

        parts = [escaped(self.what.replace("\n", " "))]
        if self.start:
            parts.append(f"*Start:* {escaped(self.start)}")
        if self.source:
            parts.append(f"*Source:* {escaped(self.source)}")
        return "\n\n".join(parts)


@lru_cache(maxsize=1)
def _panels_file() -> dict:
    return bounded.parse_toml(bounded.read_text(resource_path("help", "panels.toml"), "help"))


def panel_help(name: str) -> PanelHelp | None:
    table = _panels_file().get(name)
    if not isinstance(table, dict):
        return None
    return PanelHelp(name, str(table.get("title", name)), str(table.get("what", "")).strip(),
                     str(table.get("start", "")), str(table.get("source", "")))


def help_order(names: list[str]) -> list[str]:
    """`names` in the help file's order; panels it does not list come last."""
    order = [n for n in _panels_file().get("order", []) if n in names]
    return order + [n for n in names if n not in order]


def getting_started_markdown(panel_names: list[str]) -> str:
    page = bounded.read_text(resource_path("help", "getting_started.md"), "help")
    sections = []
    for name in help_order(panel_names):
        entry = panel_help(name)
        if entry is not None:
            sections.append(f"### {entry.title}\n\n{entry.markdown()}")
    return page.rstrip() + "\n\n" + "\n\n".join(sections) + "\n"
