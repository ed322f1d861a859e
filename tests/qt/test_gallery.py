"""The panel gallery: every panel of the window, staged over the fake backend, draws its data."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from workbench.qt.gallery import __main__ as gallery
from workbench.qt.gallery.stages import ENTRIES
from workbench.qt.widgets import probe_bar


def test_every_panel_of_the_window_is_in_the_gallery():
    from workbench.app.panels import panel_types

    window = {panel.name: panel for panel in panel_types()}
    assert sorted(ENTRIES) == sorted(window)
    for name, entry in ENTRIES.items():
        assert entry.panel_type is window[name]


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_panel_shows_its_canned_data(qtbot, tmp_path, monkeypatch, name):
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", probe_bar.AUTO_INTERVAL_S)  # restored
    entry = ENTRIES[name]
    panel = gallery.build(entry, tmp_path, (800, 600))
    qtbot.addWidget(panel)
    try:
        # quiet, and showing what it was staged with: a probe drawn, a run's curves, a line
        assert gallery.settle(QApplication.instance(), panel.controller,
                              lambda: entry.shown(panel), timeout_s=30)
    finally:
        panel.controller.shutdown()


def test_a_screenshot_is_written_at_the_size_asked(tmp_path, capsys):
    out = tmp_path / "confusion.png"
    assert gallery.main(["confusion", "--screenshot", str(out), "--size", "900x640"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 640)


def test_unknown_names_and_the_list(capsys):
    assert gallery.main(["nonesuch"]) == 2
    assert "Panels: corpus" in capsys.readouterr().err
    assert gallery.main([]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(ENTRIES) and listed[6].startswith("attention")
