"""Export any pyqtgraph plot as PNG or SVG, and its data as CSV.

`export_png`, `export_svg` and `export_csv` work without a dialog (tests and scripts use them).
`PlotExportBar` is a row of three small buttons ("PNG…", "SVG…", "CSV…") a panel puts under a
plot; it asks for a file name and reports failures through a callback instead of raising, so a
full disk or a read-only folder never takes the window down.

Usage in a panel:

    bar = PlotExportBar(self.plot, data=lambda: (["rank", "count"], [ranks, counts]),
                        name="zipf", on_error=controller.report_error)
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path

import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QGraphicsScene, QHBoxLayout, QPushButton, QWidget

PlotLike = pg.PlotWidget | pg.GraphicsLayoutWidget | pg.PlotItem | pg.GraphicsView
DataSource = Callable[[], tuple[Sequence[str], Sequence[Sequence]]]


def _export_target(plot: PlotLike):
    """The item an exporter renders: the plot item of a PlotWidget, else the whole scene."""
    if isinstance(plot, pg.PlotWidget):
        return plot.getPlotItem()
    if isinstance(plot, pg.GraphicsView):
        return plot.scene()
    return plot


def export_png(plot: PlotLike, path: str | Path, width: int | None = None) -> Path:
    """Render the plot to a PNG file (at `width` pixels, else at its size on screen)."""
    exporter = ImageExporter(_export_target(plot))
    if width:
        exporter.parameters()["width"] = int(width)
    path = Path(path)
    exporter.export(str(path))
    if not path.exists():
        raise OSError(f"Could not write the image {path}.")
    return path


def export_svg(plot: PlotLike, path: str | Path) -> Path:
    """Write the plot as an SVG vector drawing.

    Rendered with Qt's own SVG generator: pyqtgraph's SVGExporter (0.14) fails to parse the
    path data that Qt 6.7+ writes, so it cannot be used with the Qt this app ships.
    """
    target = _export_target(plot)
    scene = target if isinstance(target, QGraphicsScene) else target.scene()
    source = scene.sceneRect() if target is scene else target.sceneBoundingRect()
    size = source.size().toSize()
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(Path(path).stem)
    painter = QPainter(generator)
    try:
        scene.render(painter, QRectF(0, 0, size.width(), size.height()), source)
    finally:
        painter.end()
    path = Path(path)
    if not path.exists():
        raise OSError(f"Could not write the drawing {path}.")
    return path


def export_csv(path: str | Path, header: Sequence[str], columns: Sequence[Sequence]) -> Path:
    """Write columns of equal length under a header row (UTF-8, comma separated)."""
    columns = [list(c) for c in columns]
    if len(header) != len(columns):
        raise ValueError(f"{len(header)} column names for {len(columns)} columns.")
    lengths = {len(c) for c in columns}
    if len(lengths) > 1:
        raise ValueError(f"Columns differ in length: {sorted(lengths)}.")
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(zip(*columns, strict=True))
    return path


class PlotExportBar(QWidget):
    """Buttons that export a plot's picture (PNG, SVG) and its data (CSV) to files."""

    def __init__(self, plot: PlotLike, data: DataSource | None = None, name: str = "plot",
                 on_error: Callable[[str], None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot, self.data, self.name, self.on_error = plot, data, name, on_error
        self.last_dir = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addStretch(1)
        self.buttons: dict[str, QPushButton] = {}
        for kind, tip in (("PNG", "Export the plot as a PNG image"),
                          ("SVG", "Export the plot as an SVG drawing"),
                          ("CSV", "Export the plotted data as CSV")):
            button = QPushButton(f"{kind}…")
            button.setToolTip(tip)
            button.setObjectName(f"export-{kind.lower()}")
            button.clicked.connect(lambda _=False, k=kind: self.ask_and_export(k))
            layout.addWidget(button)
            self.buttons[kind] = button
        self.buttons["CSV"].setEnabled(data is not None)

    def export_to(self, kind: str, path: str | Path) -> Path:
        if kind == "PNG":
            return export_png(self.plot, path)
        if kind == "SVG":
            return export_svg(self.plot, path)
        if self.data is None:
            raise ValueError("This plot has no data to export.")
        header, columns = self.data()
        return export_csv(path, header, columns)

    def ask_and_export(self, kind: str) -> None:
        path = ask_export(self, kind, self.name, self.last_dir, self.export_to, self.on_error)
        if path is not None:
            self.last_dir = str(Path(path).parent)


def ask_export(parent: QWidget, kind: str, name: str, folder: str,
               export: Callable[[str, str], object],
               on_error: Callable[[str], None] | None) -> str | None:
    """Ask where to save a `kind` export (PNG, SVG, CSV, NPY), write it, report a failure.
    Returns the path written, or None when the user cancelled or it failed."""
    suffix = kind.lower()
    start = str(Path(folder) / f"{name}.{suffix}")
    path, _ = QFileDialog.getSaveFileName(parent, f"Export {kind}", start,
                                          f"{kind} files (*.{suffix})")
    if not path:
        return None
    if not path.lower().endswith(f".{suffix}"):
        path += f".{suffix}"
    try:
        export(kind, path)
    except (OSError, ValueError) as exc:
        message = f"Could not export {Path(path).name}: {exc}. Choose another folder."
        if on_error is None:
            raise
        on_error(message)
        return None
    return path
