"""The list of runs: a colour swatch, a check box to show or hide, a name to rename in place,
and a context menu (resume, open folder, colour, remove from the view)."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QIcon, QPixmap
from PySide6.QtWidgets import QColorDialog, QListWidget, QListWidgetItem, QMenu, QWidget

# Okabe–Ito colours (distinguishable with colour-blindness), without the pale yellow
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
KEY_ROLE = Qt.ItemDataRole.UserRole
COLOUR_ROLE = Qt.ItemDataRole.UserRole + 1
FOLLOWING_TIP = "\n(following: another process writes this run; its curves grow as it does)"


def unused_colour(used: set) -> str:
    """The first palette colour not in `used`; past the palette, hues spread by the golden
    angle (never two runs drawn in one colour)."""
    for colour in PALETTE:
        if colour not in used:
            return colour
    for n in range(len(used) + 1):
        colour = QColor.fromHsvF((0.61803398875 * n) % 1.0, 0.75, 0.8).name()
        if colour not in used:
            return colour
    return PALETTE[0]


def distinct_colours(shown: list[tuple[str, str]]) -> dict[str, str]:
    """New colours for the runs of `shown` ((key, colour) in list order) whose colour an
    earlier one already has: colours unique among the runs shown (issue 31: run folders made
    one by one each got the palette's first colour)."""
    taken = {colour for _, colour in shown}
    seen: set[str] = set()
    changes = {}
    for key, colour in shown:
        if colour in seen:
            colour = unused_colour(taken | seen)
            changes[key] = colour
        seen.add(colour)
    return changes


def swatch(colour: str) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


class RunList(QListWidget):
    visibility_changed = Signal(str, bool)
    renamed = Signal(str, str)
    colour_changed = Signal(str, str)
    resume_requested = Signal(str)
    inspect_requested = Signal(str, str)  # run folder, "best" | "latest"
    remove_requested = Signal(str)
    follow_requested = Signal(str)
    stop_follow_requested = Signal(str)
    current_run_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setIconSize(QSize(14, 14))
        # names of one recipe differ at their ends ("char-lstm-shakespeare-small-3"): a
        # narrow list (1366 px, presentation mode) keeps both ends, the item's tip the whole;
        # with a sideways scroll bar Qt cuts the end off instead ("char-lstm-shakes")
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip("Runs: tick to show on the curves, double-click to rename, "
                        "right-click to resume, follow, inspect a checkpoint, recolour or "
                        "open the folder. Bold: training here; italics: followed (another "
                        "process writes it)")
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemChanged.connect(self._on_item_changed)
        self.currentItemChanged.connect(self._on_current)
        self._names: dict[str, str] = {}
        self._live: set[str] = set()
        self._following: set[str] = set()

    def next_colour(self) -> str:
        """The first palette colour no listed run has (beyond the palette: a new hue)."""
        used = {self.item(i).data(COLOUR_ROLE) for i in range(self.count())}
        return unused_colour(used)

    def set_colour(self, key: str, colour: str) -> None:
        item = self.item_for(key)
        if item is not None:
            with QSignalBlocker(self):
                item.setIcon(swatch(colour))
                item.setData(COLOUR_ROLE, colour)

    def add_run(self, key: str, name: str, colour: str, visible: bool = True,
                resumable: bool = False) -> None:
        with QSignalBlocker(self):
            item = self.item_for(key) or QListWidgetItem()
            item.setText(name)
            item.setIcon(swatch(colour))
            item.setData(COLOUR_ROLE, colour)
            item.setData(KEY_ROLE, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable
                          | Qt.ItemFlag.ItemIsEditable)
            item.setCheckState(Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked)
            item.setToolTip(key + ("\n(resumable from its latest checkpoint)" if resumable else ""))
            if self.item_for(key) is None:
                self.addItem(item)
            self._names[key] = name
        self.setCurrentItem(item)

    def rekey(self, old: str, new: str) -> None:
        """A live run got its folder: key it by the folder from now on."""
        item = self.item_for(old)
        if item is not None:
            item.setData(KEY_ROLE, new)
            item.setToolTip(new)
            self._names[new] = self._names.pop(old, item.text())

    def set_live(self, key: str, live: bool) -> None:
        """A run this window trains shows in bold."""
        (self._live.add if live else self._live.discard)(key)
        self._restyle(key)

    def set_following(self, key: str, following: bool) -> None:
        """A followed run (another process writes it) shows in italics and says so."""
        (self._following.add if following else self._following.discard)(key)
        self._restyle(key)

    def _restyle(self, key: str) -> None:
        item = self.item_for(key)
        if item is None:
            return
        font = item.font()
        font.setBold(key in self._live)
        font.setItalic(key in self._following)
        item.setFont(font)
        base = item.toolTip().split(FOLLOWING_TIP)[0]
        item.setToolTip(base + (FOLLOWING_TIP if key in self._following else ""))

    def show_name(self, key: str, name: str) -> None:
        """Show a name the run itself gives (not a rename by the user: nothing is saved)."""
        item = self.item_for(key)
        if item is not None:
            with QSignalBlocker(self):
                item.setText(name)
                self._names[key] = name

    def set_checked(self, key: str, checked: bool) -> None:
        item = self.item_for(key)
        if item is not None:
            with QSignalBlocker(self):
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def select(self, key: str) -> None:
        item = self.item_for(key)
        if item is not None:
            self.setCurrentItem(item)
            self.scrollToItem(item)

    def item_for(self, key: str) -> QListWidgetItem | None:
        for row in range(self.count()):
            if self.item(row).data(KEY_ROLE) == key:
                return self.item(row)
        return None

    def current_key(self) -> str:
        item = self.currentItem()
        return item.data(KEY_ROLE) if item is not None else ""

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        key = item.data(KEY_ROLE)
        if item.text() != self._names.get(key):
            self._names[key] = item.text()
            self.renamed.emit(key, item.text())
        self.visibility_changed.emit(key, item.checkState() == Qt.CheckState.Checked)

    def _on_current(self, current, _previous) -> None:
        if current is not None:
            self.current_run_changed.emit(current.data(KEY_ROLE))

    def _menu(self, position) -> None:
        item = self.itemAt(position)
        if item is None:
            return
        key = item.data(KEY_ROLE)
        menu = QMenu(self)
        busy = key in self._live or key in self._following
        resume = menu.addAction("Resume training", lambda: self.resume_requested.emit(key))
        resume.setEnabled(not busy)
        if key in self._following:
            menu.addAction("Stop following", lambda: self.stop_follow_requested.emit(key))
        else:
            follow = menu.addAction("Follow (another process writes it)",
                                    lambda: self.follow_requested.emit(key))
            follow.setEnabled(key not in self._live)
        for kind in ("best", "latest"):
            menu.addAction(f"Inspect {kind} checkpoint",
                           lambda k=kind: self.inspect_requested.emit(key, k))
        menu.addAction("Rename", lambda: self.editItem(item))
        menu.addAction("Colour…", lambda: self._choose_colour(item))
        menu.addAction("Open folder", lambda: QDesktopServices.openUrl(
            QUrl.fromLocalFile(key)))
        remove = menu.addAction("Remove from view", lambda: self._remove(item))
        remove.setEnabled(key not in self._live)
        menu.exec(self.viewport().mapToGlobal(position))

    def _choose_colour(self, item: QListWidgetItem) -> None:
        colour = QColorDialog.getColor(parent=self, title="Run colour")
        if colour.isValid():
            item.setIcon(swatch(colour.name()))
            item.setData(COLOUR_ROLE, colour.name())
            self.colour_changed.emit(item.data(KEY_ROLE), colour.name())

    def _remove(self, item: QListWidgetItem) -> None:
        key = item.data(KEY_ROLE)
        self.takeItem(self.row(item))
        self._names.pop(key, None)
        self.remove_requested.emit(key)
