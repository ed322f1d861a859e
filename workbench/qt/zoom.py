"""Zoom and presentation mode: one factor scales the text, the plots' titles, axis labels, tick
text and line widths together, for a projector at the back of a classroom. Remembered.

View ▸ Zoom in (Ctrl++), Zoom out (Ctrl+-), Actual size (Ctrl+0) and Presentation mode
(Ctrl+Shift+M: 1.6 times, and back to the factor before) all set the same `factor`, kept in
QSettings as "view/zoom". Widgets follow the application font (Qt passes a font change to
every widget that did not set its own). pyqtgraph items carry their own fonts and pens, so the
plots of every panel, also those a panel adds later, are rescaled here: each scene is looked at
again shortly after it changes, and an item is scaled from its own base size (what its panel
gave it, read the first time it is seen, or again when the panel has set it anew since).
"""

from __future__ import annotations

import math
import re
import time
import weakref

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPen
from PySide6.QtWidgets import QApplication, QDockWidget, QScrollArea, QWidget

STEPS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.4)
PRESENTATION = 1.6
SETTING = "view/zoom"
BASE_FONT = "workbench_base_font"
LARGER = "workbench_larger"  # a widget property: its text this many times the application's
# a rescan after a scene change walks the whole window for new plots at most this often; the
# changed ones are rescanned every time (the walk, 2.4 ms after every curve update, took 2.35 s
# of a training window's GUI thread in a 4-minute soak: bench_soak under cProfile). A scene that
# changes while a walk is pending is rescanned with it, up to a second later.
DISCOVER_EVERY_S = 1.0
RESCAN_MS = 120  # a scene is looked at again this long after it changes
_PT = re.compile(r"([\d.]+)\s*pt")


class Zoom(QObject):
    changed = Signal(float)

    def __init__(self, root: QWidget, settings: QSettings) -> None:
        super().__init__(root)
        self.root = root
        self.settings = settings
        app = QApplication.instance()
        # the font at factor 1, kept on the application: a second window must not take the
        # first one's zoomed font for its base
        if app.property(BASE_FONT) is None:
            app.setProperty(BASE_FONT, QFont(app.font()))
        self.base_font = QFont(app.property(BASE_FONT))
        self.factor = _clamp(float(settings.value(SETTING, 1.0) or 1.0))
        self.before_presentation = 1.0
        self._seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # item -> state
        self._views: weakref.WeakSet = weakref.WeakSet()
        # views whose scene changed since the last rescan: only their items can be new or
        # restyled (a rescan of every plot on every curve update stalled a training window)
        self._dirty: weakref.WeakSet = weakref.WeakSet()
        self._discovered_at = -math.inf
        self._rescan = QTimer(self, singleShot=True, interval=RESCAN_MS)
        self._rescan.timeout.connect(lambda: self.apply_to_plots(changed_only=True))
        self.apply()

    # --- the factor ---------------------------------------------------------------------------

    @property
    def presentation(self) -> bool:
        return self.factor >= PRESENTATION

    def set_factor(self, factor: float) -> None:
        factor = _clamp(factor)
        if abs(factor - self.factor) < 1e-6:
            return
        self.factor = factor
        self.settings.setValue(SETTING, factor)
        self.apply()
        self.changed.emit(factor)

    def zoom_in(self) -> None:
        self.set_factor(next((s for s in STEPS if s > self.factor + 1e-6), STEPS[-1]))

    def zoom_out(self) -> None:
        self.set_factor(next((s for s in reversed(STEPS) if s < self.factor - 1e-6), STEPS[0]))

    def actual_size(self) -> None:
        self.set_factor(1.0)

    def set_presentation(self, on: bool) -> None:
        if on and not self.presentation:
            self.before_presentation = self.factor
            self.set_factor(PRESENTATION)
        elif not on and self.presentation:
            self.set_factor(min(self.before_presentation, STEPS[STEPS.index(PRESENTATION) - 1]))

    def font(self, scale: float = 1.0) -> QFont:
        font = QFont(self.base_font)
        font.setPointSizeF(self.base_font.pointSizeF() * self.factor * scale)
        return font

    # --- applying it --------------------------------------------------------------------------

    def apply(self) -> None:
        QApplication.instance().setFont(self.font())
        self.apply_to_widgets()
        self.apply_to_plots()

    def apply_to_widgets(self) -> None:
        """What the application font does not reach. A dock draws its title in the font it
        read when it was made (QDockWidgetPrivate::font) unless its own font differs from the
        application's: it gets the zoomed font marked by a style strategy no one sees. A
        widget styled by a style sheet (a grey hint line, a coloured bar and its children)
        keeps the font it was polished with until it is polished again."""
        font = self.font()
        font.setStyleStrategy(QFont.StyleStrategy.PreferQuality)
        for dock in self.root.findChildren(QDockWidget):
            dock.setFont(font)  # its panel follows the dock's font as it did the application's
        for widget in self.root.findChildren(QWidget):
            if widget.property(LARGER):
                set_larger(widget, float(widget.property(LARGER)))
        styled = [w for w in self.root.findChildren(QWidget) if w.styleSheet()]
        for widget in styled:
            for each in (widget, *widget.findChildren(QWidget)):
                each.style().unpolish(each)
                each.style().polish(each)

    def apply_to_plots(self, changed_only: bool = False) -> None:
        """Scale every plot's text, lines and markers to the factor; `changed_only`: only the
        plots new since the last scan or whose scene changed (the rescan after a change)."""
        dirty, self._dirty = set(self._dirty), weakref.WeakSet()
        now = time.monotonic()
        wait = self._discovered_at + DISCOVER_EVERY_S - now
        if changed_only and wait > 0:
            views = [view for view in dirty if shiboken6.isValid(view)]
            self._rescan.start(math.ceil(1000 * wait))  # and look for new plots then
        else:  # a walk of the whole window (~2.4 ms): new plots are found at most once a second
            views = self.root.findChildren(pg.GraphicsView)
            self._discovered_at = now
        for view in views:
            if view not in self._views:
                self._views.add(view)
                ref = weakref.ref(view)
                view.scene().changed.connect(lambda *_, ref=ref: self._on_scene_changed(ref()))
            elif changed_only and view not in dirty:
                continue
            self._min_height(view)
            for item in view.scene().items():
                self._scale(item)
            self._fit_width(view)

    def _min_height(self, view) -> None:
        """A plot's readable height grows with its text (its panel then scrolls sooner)."""
        _, height = self._state(view, "min_height", view.minimumHeight(),
                                lambda base: round(base * self.factor))
        if view.minimumHeight() != height:
            view.setMinimumHeight(height)

    def _fit_width(self, view) -> None:
        """A grid of plots in a scroll area is at least as wide as its plots' titles and tick
        text need (they grow with the factor), so it scrolls sideways instead of cutting off its
        last column. Only there: elsewhere a wider minimum would widen the window."""
        viewport = view.parentWidget()
        if not isinstance(view, pg.GraphicsLayoutWidget) or viewport is None or not isinstance(
                viewport.parentWidget(), QScrollArea):
            return
        for plot in view.ci.items:  # a plot given a fixed minimum still needs its title's width
            inner = getattr(plot, "layout", None)
            if isinstance(plot, pg.PlotItem) and inner is not None:
                content = math.ceil(inner.effectiveSizeHint(Qt.SizeHint.MinimumSize).width())
                _, least = self._state(plot, "min_width", plot.minimumWidth(),
                                       lambda base, content=content: max(base, content))
                if plot.minimumWidth() != least:
                    plot.setMinimumWidth(least)
        need = math.ceil(view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
                         + 2 * view.frameWidth())
        _, width = self._state(view, "min_width", view.minimumWidth(),
                               lambda base: max(base, need))
        if view.minimumWidth() != width:
            view.setMinimumWidth(width)

    def _on_scene_changed(self, view) -> None:
        if view is not None:
            self._dirty.add(view)
        if not self._rescan.isActive():
            self._rescan.start(RESCAN_MS)

    def _scale(self, item) -> None:
        if isinstance(item, pg.AxisItem):
            self._axis(item)
        elif isinstance(item, pg.LabelItem):
            self._label(item)
        elif isinstance(item, pg.TextItem):
            self._text(item)
        elif isinstance(item, pg.PlotDataItem):
            self._plot_data(item)
        elif isinstance(item, pg.ScatterPlotItem) and not isinstance(item.parentItem(),
                                                                     pg.PlotDataItem):
            self._sized(item, item.opts.get("size", 7), item.setSize)
        elif isinstance(item, (pg.PlotCurveItem, pg.InfiniteLine)) and not isinstance(
                item.parentItem(), pg.PlotDataItem) or callable(getattr(item, "zoom_pen", None)):
            self._pen(item)

    def _state(self, item, key: str, current, applied_of):
        """The base value of `key`: the current one unless it is still what we applied (the
        panel has not set it anew since)."""
        state = self._seen.setdefault(item, {})
        base, applied = state.get(key, (None, None))
        if base is None or current != applied:
            base = current
        value = applied_of(base)
        state[key] = (base, value)
        return base, value

    def _axis(self, axis: pg.AxisItem) -> None:
        font = self.font(0.9)
        if self._seen.get(axis, {}).get("font") != self.factor:
            axis.setStyle(tickFont=font, tickTextOffset=max(2, round(3 * self.factor)))
            axis.label.setFont(font)
            axis._updateLabel()
            self._seen.setdefault(axis, {})["font"] = self.factor
        if axis.fixedWidth is not None:
            _, width = self._state(axis, "width", axis.fixedWidth,
                                   lambda base: round(base * self.factor))
            if axis.fixedWidth != width:
                axis.setWidth(width)

    def _label(self, label: pg.LabelItem) -> None:
        """A plot title or legend entry: its size in points times the factor (a label that
        names no size has the base font's)."""
        state = self._seen.setdefault(label, {})
        size = label.opts.get("size")
        base, applied = state.get("size", (None, None))
        if applied is None or size != applied:  # first seen, or its panel set a size since
            match = _PT.fullmatch(str(size or ""))
            base = float(match.group(1)) if match else None
        target = f"{(base or self.base_font.pointSizeF()) * self.factor:.1f}pt"
        # a projector's titles are bold; otherwise as the panel made them
        own_bold = state.setdefault("bold", label.opts.get("bold"))
        bold = True if self.factor >= PRESENTATION else own_bold
        if (size != target or label.opts.get("bold") != bold) and label.text:
            label.setText(label.text, size=target, bold=bold)
        state["size"] = (base, target)

    def _text(self, item: pg.TextItem) -> None:
        if self._seen.get(item, {}).get("font") != self.factor:
            item.setFont(self.font())
            self._seen.setdefault(item, {})["font"] = self.factor

    def _plot_data(self, item: pg.PlotDataItem) -> None:
        pen = item.opts.get("pen")
        if pen is not None:
            qpen = pg.mkPen(pen)
            width = qpen.widthF() or 1.0
            _, scaled = self._state(item, "pen", width, lambda base: base * self.factor)
            if abs(qpen.widthF() - scaled) > 1e-6:
                qpen = QPen(qpen)
                qpen.setWidthF(scaled)
                item.setPen(qpen)
                self._seen[item]["pen"] = (self._seen[item]["pen"][0], scaled)
        if item.opts.get("symbol") is not None:
            self._sized(item, item.opts.get("symbolSize", 10), item.setSymbolSize)

    def _sized(self, item, size, setter) -> None:
        _, scaled = self._state(item, "size", size, lambda base: round(base * self.factor, 1))
        if size != scaled:
            setter(scaled)

    def _pen(self, item) -> None:
        if isinstance(item, pg.PlotCurveItem):
            current = pg.mkPen(item.opts["pen"])
        elif isinstance(item, pg.InfiniteLine):
            current = item.pen
        else:
            current = item.zoom_pen()  # an item of ours (the training curves' CurveItem)
            if getattr(item, "dot_size", 0):
                self._sized(item, item.dot_size, item.set_dot_size)
        qpen = QPen(current)
        width = qpen.widthF() or 1.0
        _, scaled = self._state(item, "pen", width, lambda base: base * self.factor)
        if abs(qpen.widthF() - scaled) > 1e-6:
            qpen.setWidthF(scaled)
            item.setPen(qpen)


def set_larger(widget: QWidget, scale: float, bold: bool | None = None) -> None:
    """Text `scale` times the application font's size (a verdict, a heading), and kept so as
    the zoom changes: a widget given a font of its own, or a size in a style sheet, no longer
    follows the application font."""
    font = QFont(QApplication.font())
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(widget.font().bold() if bold is None else bold)
    widget.setProperty(LARGER, scale)
    widget.setFont(font)


def _clamp(factor: float) -> float:
    if not math.isfinite(factor):  # nan passes min and max unchanged (and was stored)
        return 1.0
    return min(max(factor, STEPS[0]), STEPS[-1])
