"""Perspectives: the few panels of one step of the work, as saved dock layouts a click apart.

A student loading a corpus needs the Corpus panel, not ten docks; one inspecting a model needs
the inspectors with room to read them. A perspective names the panels it shows and where: the
`main` ones tabbed together on the left (the first raised), `side` ones tabbed on the right
(tabbed with the main ones instead when the window is narrower than `wide_from`), `bottom`
ones below. Switching keeps the current perspective's layout (the user's moves and sizes) in
QSettings and restores the target's, or builds its default one. A perspective none of whose
panels is in the window is left out; "All panels" shows every dock where its panel asks.

A new panel joins a perspective by its name in the tuples below, or by declaring
`perspective = "Inspect"` on its class (tabbed with that perspective's main panels). A new
perspective (Lessons) is one more `Perspective(...)` in PERSPECTIVES, with its shortcut; the
toolbar, the View menu and the shortcut follow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabBar

from workbench.qt.panel import AREAS

ALL = "All panels"


@dataclass(frozen=True)
class Perspective:
    name: str
    shortcut: str
    main: tuple[str, ...]
    side: tuple[str, ...] = ()
    bottom: tuple[str, ...] = ()
    tip: str = ""
    main_share: float = 0.5  # of the width, when side panels sit beside the main ones
    bottom_share: float = 0.5  # of the height
    wide_from: int = 1500  # narrower windows (in unzoomed pixels) tab the side panels
    raised: str = ""  # the panel in front when they are tabbed (default: the first)


PERSPECTIVES: list[Perspective] = [
    Perspective("Data", "Ctrl+1", ("corpus",),
                tip="Open a corpus, read its statistics and text, choose a tokenizer"),
    Perspective("Embeddings", "Ctrl+2", ("embeddings",),
                tip="Train word vectors, ask for neighbours and analogies, draw maps"),
    Perspective("Model & training", "Ctrl+3", ("architecture",), side=("training",),
                tip="Choose an architecture and train it; watch the curves", main_share=0.36,
                wide_from=1800, raised="training"),
    Perspective("Inspect", "Ctrl+4", ("gates", "attention", "gradients"),
                side=("nexttoken", "worked"),
                tip="Look inside the model: gates, attention, gradients, next-token guesses"),
    Perspective("Generate", "Ctrl+5", ("generate",),
                tip="Write with the model: decoding strategies, clamps, history"),
    # the Lessons panel alone until a step names its panels (MainWindow.show_lesson_panels
    # puts those beside it): ten panels tabbed beside the first page only buried the lesson
    Perspective("Lessons", "Ctrl+6", ("lessons",),
                tip="Follow a lesson: its steps on the left, the panels each step opens beside",
                main_share=0.32, wide_from=1200),
]


class PerspectiveSwitcher(QObject):
    """Arranges the docks of `window` (a QMainWindow with `docks` and `panels` by name).
    `scale` is the zoom factor: whether side panels fit beside the main ones depends on the
    width the text has at that zoom, not on the window's pixels."""

    def __init__(self, window: QMainWindow, settings: QSettings,
                 scale: Callable[[], float] = lambda: 1.0) -> None:
        super().__init__(window)
        self.window = window
        self.settings = settings
        self.scale = scale
        self.current = ""
        self.arranged_key = ""  # where the layout on screen is kept: the key it was made for
        self.focused: tuple[tuple[str, ...], str] | None = None  # a lesson step's panels
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.actions: dict[str, QAction] = {}
        for perspective in self.available():
            action = QAction(perspective.name.replace("&", "&&"), self.group, checkable=True)
            if perspective.shortcut:
                action.setShortcut(QKeySequence(perspective.shortcut))
            shortcut = f" ({perspective.shortcut})" if perspective.shortcut else ""
            action.setToolTip(f"{perspective.tip or perspective.name}{shortcut}")
            action.triggered.connect(lambda _=False, n=perspective.name: self.switch(n))
            self.actions[perspective.name] = action

    def available(self) -> list[Perspective]:
        docks = self.window.docks
        found = [p for p in PERSPECTIVES if any(n in docks for n in self.members(p))]
        return found + [Perspective(ALL, "Ctrl+9", tuple(docks), tip="Every panel at once")]

    def members(self, perspective: Perspective) -> list[str]:
        declared = [name for name, panel in self.window.panels.items()
                    if panel.perspective == perspective.name]
        names = [*perspective.main, *declared, *perspective.side, *perspective.bottom]
        return [n for n in dict.fromkeys(names) if n in self.window.docks]

    def named(self, name: str) -> Perspective | None:
        return next((p for p in self.available() if p.name == name), None)

    # --- switching ----------------------------------------------------------------------------

    def switch(self, name: str) -> bool:
        perspective = self.named(name)
        if perspective is None:
            return False
        self.save()
        self._detach_all()
        saved = self.settings.value(self._key(perspective))
        if not (isinstance(saved, QByteArray) and self.window.restoreState(saved)):
            self.arrange(perspective)
        self.arranged_key = self._key(perspective)
        self.focused = None
        self.current = name
        self.settings.setValue("perspective/current", name)
        self.actions[name].setChecked(True)
        self._tidy_tab_bars()
        QTimer.singleShot(0, self, self._tidy_tab_bars)  # after the layout's own pass
        return True

    def focus(self, name: str, panels: tuple[str, ...], raised: str = "") -> bool:
        """Perspective `name` with only `panels` beside its main ones, `raised` in front: a
        lesson step shows the Lessons panel and the few panels the step names, closing those
        earlier steps opened (they piled up and squeezed the current one)."""
        perspective = self.named(name)
        if perspective is None:
            return False
        if self.current != name:
            self.save()  # the layout the user leaves is kept, as a switch keeps it
        panels = tuple(n for n in panels if n in self.window.docks
                       and n not in perspective.main)
        self.arrange(replace(perspective, side=panels, raised=raised))
        self.arranged_key = self._key(perspective)
        self.focused = (panels, raised)
        self.current = name
        self.settings.setValue("perspective/current", name)
        self.actions[name].setChecked(True)
        self._tidy_tab_bars()
        QTimer.singleShot(0, self, self._tidy_tab_bars)
        return True

    def join(self, name: str) -> None:
        """Put the hidden panel `name` into the current layout tabbed with the panels in front
        on the left (the perspective's main ones), not in an area of its own: docked below
        Generate, Training took half the height and the Generate button left a 1366 × 768
        screen. With nothing on the left it goes where its panel asks."""
        window, dock = self.window, self.window.docks[name]
        main = next((d for d in window.docks.values() if d is not dock and d.isVisible()
                     and not d.isFloating()
                     and window.dockWidgetArea(d) == Qt.DockWidgetArea.LeftDockWidgetArea),
                    None)
        if main is None:
            window.addDockWidget(AREAS[window.panels[name].area], dock)
        else:
            window.tabifyDockWidget(main, dock)
        dock.setFloating(False)
        QTimer.singleShot(0, self, self._tidy_tab_bars)

    def _tidy_tab_bars(self) -> None:
        """Tabs of docks show whole names, scrolling with arrows when they do not fit (ten
        panels tabbed beside a lesson read "Gat…", "T…", "G…" at 1366 px, worse zoomed). And
        hide every tab bar that is not the bar of a tab group shown now: Qt's main window
        keeps such a bar on screen after its docks left (a strip of tabs where no panel is),
        seen under Xvfb after switching between perspectives that tab different panels, and
        in a screenshot of All panels ("Embeddings | Gates" under the Training panel)."""
        titles = {dock.windowTitle(): dock for dock in self.window.docks.values()}
        for bar in self.window.findChildren(QTabBar):
            if bar.parent() is not self.window:
                continue
            if bar.elideMode() != Qt.TextElideMode.ElideNone:  # Qt makes bars as it needs them
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
            if not bar.isVisible():
                continue
            names = [bar.tabText(i) for i in range(bar.count())]
            first = titles.get(names[0]) if names else None
            group = [] if first is None or first.isHidden() else \
                [first, *self.window.tabifiedDockWidgets(first)]
            real = {dock.windowTitle() for dock in group if not dock.isHidden()}
            if len(real) < 2 or set(names) != real:
                bar.hide()

    def _wide(self, perspective: Perspective) -> bool:
        """Room for the side panels beside the main ones, in unzoomed pixels: presentation
        mode (1.6 times) at 1920 px has the room of 1200, and Training beside Architecture
        there showed half its plots and squeezed the layer table (issue 31)."""
        return self.window.width() / max(self.scale(), 0.1) >= perspective.wide_from

    def _key(self, perspective: Perspective) -> str:
        """Where a perspective's layout is kept: one for narrow windows (side panels tabbed)
        and one for wide ones, so a layout made on a laptop is not forced on a large screen."""
        return f"perspective/{perspective.name}/{'wide' if self._wide(perspective) else 'narrow'}"

    def save(self) -> None:
        """Keep the current perspective's layout as the user left it, under the key it was
        made for (the window may have been resized or zoomed since)."""
        perspective = self.named(self.current)
        if perspective is not None:
            self.settings.setValue(self.arranged_key or self._key(perspective),
                                   self.window.saveState())

    def refit(self) -> None:
        """After a zoom or a resize: when the window crossed its perspective's width, its
        panels move to that width's layout (the user's own for it, or the default)."""
        perspective = self.named(self.current)
        if perspective is None or not self.arranged_key \
                or self._key(perspective) == self.arranged_key:
            return
        if self.focused is not None:  # a lesson step keeps the panels it opened
            self.focus(self.current, *self.focused)
        else:
            self.switch(self.current)

    def reset(self) -> None:
        """The current perspective's default layout (View ▸ Reset layout)."""
        perspective = self.named(self.current)
        if perspective is not None:
            self.settings.remove(self._key(perspective))
            self.arrange(perspective)
            self.arranged_key = self._key(perspective)
            self.focused = None

    def _detach_all(self) -> None:
        """Take every dock out of the layout first: a dock left hidden inside a tab group
        keeps that group's tab bar on screen (an empty strip of tabs where nothing is).
        Hidden first, and the layout request that posts handled, then removed: after a
        restored layout with a floating panel, removeDockWidget at once segfaulted in Qt's
        QLayout::removeWidget every time (float a panel, restart, Reset layout), offscreen and
        under X alike; hiding alone or handling events alone did not help."""
        for dock in self.window.docks.values():
            dock.hide()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        for dock in self.window.docks.values():
            self.window.removeDockWidget(dock)

    def arrange(self, perspective: Perspective) -> None:
        window, docks = self.window, self.window.docks
        self._detach_all()
        if perspective.name == ALL:
            groups = {}
            for name, panel in window.panels.items():
                groups.setdefault(panel.area, []).append(name)
        else:
            members = self.members(perspective)
            side = [n for n in perspective.side if n in members]
            bottom = [n for n in perspective.bottom if n in members]
            main = [n for n in members if n not in side and n not in bottom]
            if not self._wide(perspective):
                main, side = main + side, []
            groups = {"left": main, "right": side, "bottom": bottom}
        shown = {n for names in groups.values() for n in names}
        for name, dock in docks.items():
            if name not in shown:  # in the layout, so a saved layout knows it is hidden,
                window.addDockWidget(AREAS[window.panels[name].area], dock)
                dock.setFloating(False)  # but in no tab group, so no tab bar stays behind
                dock.hide()
        firsts: dict[str, object] = {}
        for area, names in groups.items():
            for name in names:
                dock = docks[name]
                window.addDockWidget(AREAS[area], dock)
                dock.setFloating(False)  # once it is in the layout again (a floated dock)
                dock.show()
                if area in firsts:
                    window.tabifyDockWidget(firsts[area], dock)
                else:
                    firsts[area] = dock
        for dock in firsts.values():
            dock.raise_()
        if perspective.raised in shown:
            docks[perspective.raised].raise_()
        QTimer.singleShot(0, self, lambda: self._size(perspective, firsts))

    def _size(self, perspective: Perspective, firsts: dict) -> None:
        """Share the window between the areas (resizeDocks needs the window's size, hence
        a turn of the event loop after the docks moved)."""
        window = self.window
        left, right, bottom = (firsts.get(a) for a in ("left", "right", "bottom"))
        if left is not None and right is not None:
            width = window.width()
            main = int(width * perspective.main_share)
            window.resizeDocks([left, right], [main, width - main], Qt.Orientation.Horizontal)
        top = left or right
        if top is not None and bottom is not None:
            height = window.height()
            low = int(height * perspective.bottom_share)
            window.resizeDocks([top, bottom], [height - low, low], Qt.Orientation.Vertical)
