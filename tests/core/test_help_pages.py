"""The help texts as the window renders them: Getting started is Markdown, where a bare
"<bos>" opens an HTML tag and swallows the rest of the page (every panel's section went)."""

from __future__ import annotations

import re

from workbench.core.help_pages import getting_started_markdown, panel_help
from workbench.core.resources import resource_path

PANELS = ["corpus", "architecture", "training", "generate", "gates", "attention"]


def bare_tags(markdown: str) -> list[str]:
    """`<word>` outside backticks: Markdown reads it as an HTML tag."""
    outside = re.sub(r"`[^`]*`", "", markdown)
    return re.findall(r"<[A-Za-z][^>\s]*>", outside)


def test_getting_started_has_no_bare_angle_brackets():
    page = (resource_path("help") / "getting_started.md").read_text(encoding="utf-8")
    assert bare_tags(page) == []
    whole = getting_started_markdown(PANELS)
    assert bare_tags(whole) == []
    for name in PANELS:  # every panel's section is on the page, after the guide's text
        assert panel_help(name).title in whole
    assert "&lt;bos&gt;" in whole  # the Corpus panel's help names the boundaries, escaped
