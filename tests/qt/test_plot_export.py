"""Plot export helpers write real PNG, SVG and CSV files, and report bad paths."""

from __future__ import annotations

import csv

import numpy as np
import pyqtgraph as pg
import pytest

from workbench.qt.widgets.plot_export import PlotExportBar, export_csv, export_png, export_svg


@pytest.fixture
def plot(qtbot):
    widget = pg.PlotWidget()
    widget.plot(np.arange(10), np.arange(10) ** 2)
    widget.resize(400, 300)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_png_and_svg_files_hold_the_plot(plot, tmp_path):
    png = export_png(plot, tmp_path / "p.png", width=320)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PySide6.QtGui import QImage

    assert QImage(str(png)).width() == 320
    svg = export_svg(plot, tmp_path / "p.svg").read_text()
    assert "<svg" in svg and "path" in svg


def test_csv_has_header_and_rows_and_rejects_ragged_columns(tmp_path):
    path = export_csv(tmp_path / "d.csv", ["rank", "count"], [[1, 2, 3], [30, 20, 10]])
    rows = list(csv.reader(path.open()))
    assert rows == [["rank", "count"], ["1", "30"], ["2", "20"], ["3", "10"]]
    with pytest.raises(ValueError, match="differ in length"):
        export_csv(tmp_path / "bad.csv", ["a", "b"], [[1, 2], [1]])


def test_export_bar_writes_data_and_reports_an_unwritable_path(plot, tmp_path):
    errors = []
    bar = PlotExportBar(plot, data=lambda: (["x"], [[1, 2]]), name="zipf",
                        on_error=errors.append)
    bar.export_to("CSV", tmp_path / "z.csv")
    assert (tmp_path / "z.csv").read_text().splitlines() == ["x", "1", "2"]
    from unittest import mock

    target = str(tmp_path / "missing-dir" / "z.csv")
    with mock.patch("workbench.qt.widgets.plot_export.QFileDialog.getSaveFileName",
                    return_value=(target, "")):
        bar.ask_and_export("CSV")
    assert errors and "Could not export z.csv" in errors[0]
