"""The Training panel's run list: past runs listed unread, read by a query when first shown
(queued behind an inspector's query if one runs), hidden, renamed, recoloured, removed."""

from __future__ import annotations

import contextlib
import html
from collections.abc import Iterator
from pathlib import Path

from workbench.core.events import Event, JobFinished
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.qt.panels.training.run_list import distinct_colours
from workbench.qt.panels.training.series import RunSeries

# The header is always shown, two lines like a run's, so the panel does not lay out again
# (and repaint every plot) when the first run starts
NO_RUN = ("<b>No run selected</b><br><small>Train starts one; a past run picked in the list "
          "shows its name, recipe and folder here.</small>")


class RunListActions:
    """Mixed into TrainingPanel (it provides controller, series, run_list, curves, samples)."""

    _listing = False  # past runs are being listed: each becomes current, none is picked

    def _list_past_runs(self) -> None:
        """Past runs appear unticked; their curves are read when first ticked or picked. The
        newest is picked, so the window opens on the last run's curves."""
        try:
            folders = self.controller.backend.training.list_runs()
        except (OSError, AttributeError):
            return
        self._listing = True
        try:
            for folder, label in folders[-50:]:
                self._add_listed(str(folder), label, visible=False)
        finally:
            self._listing = False
        if folders:
            self._on_current_run(self.run_list.current_key())

    def _add_listed(self, key: str, name: str, visible: bool, colour: str = "") -> RunSeries:
        series = RunSeries(key, name, colour or self.run_list.next_colour(), visible=visible)
        series.version = -1  # not read yet
        self.series[key] = series
        self.run_list.add_run(key, name, series.colour, visible=visible, resumable=True)
        return series

    def open_run(self, path: str) -> bool:
        """Read a run folder (also one written headless) by a query and show its curves."""
        spec = _with_series(self.controller.backend.training.read_run_job(path))
        return self.controller.run_query(spec, on_result=self._show_record,
                                         caller=f"read-run:{path}")

    def _show_record(self, read) -> None:
        record, fresh = read
        key = str(record.path)
        series = self.series.get(key) or self._add_listed(key, record.name, True,
                                                           record.settings.get("colour", ""))
        if series.live or series.followed:
            return  # its own events keep it up to date
        fresh.colour = record.settings.get("colour") or series.colour
        self.series[key] = fresh
        self.run_list.add_run(key, fresh.name, fresh.colour, resumable=record.has_checkpoint)
        if record.skipped_lines:
            self.controller.notice.emit(f"{record.skipped_lines} damaged lines of {key} were "
                                        "skipped (a run stopped mid-write).")
        self._refresh_runs()
        self.samples.show_samples(fresh.samples)

    def _refresh_runs(self) -> None:
        shown = [s for s in self.series.values() if s.version >= 0]
        changes = distinct_colours([(s.key, s.colour) for s in shown if s.visible])
        for key, colour in changes.items():  # shown only: the folder keeps its own choice
            self.series[key].colour = colour
            self.series[key].version += 1
            self.run_list.set_colour(key, colour)
        self.curves.set_runs(shown)

    def _on_visibility(self, key: str, visible: bool) -> None:
        series = self.series.get(key)
        if series is None:
            return
        series.visible = visible
        if visible and series.version < 0:
            self.open_run(key)
            return
        series.version += 1
        self._refresh_runs()

    def _on_renamed(self, key: str, name: str) -> None:
        if key in self.series:
            self.series[key].name = name
            self.show_header(key)
        self._keep_setting(key, name=name)

    def _on_colour(self, key: str, colour: str) -> None:
        if key in self.series:
            self.series[key].colour = colour
            self.series[key].version += 1
            self.curves.redraw()
        self._keep_setting(key, colour=colour)

    def _keep_setting(self, key: str, **setting: str) -> None:
        """Write a name or colour into the run's folder; a read-only folder is reported."""
        if not Path(key).is_dir():
            return
        try:
            self.controller.backend.training.update_run(key, **setting)
        except UserFacingError as exc:
            self.controller.report_error(str(exc))

    def _on_removed(self, key: str) -> None:
        self.controller.stop_following(key)
        self.series.pop(key, None)
        self._refresh_runs()

    def _on_current_run(self, key: str) -> None:
        series = self.series.get(key)
        if series is not None and not series.visible and not self._listing:
            # the run a user picks (or the newest, picked at start) shows its curves: a chosen
            # run beside empty plots read as a broken run; ticks add others to compare
            self.run_list.set_checked(key, True)
            self._on_visibility(key, True)
        self.samples.show_samples(series.samples if series else [])
        self.show_header(key)

    def show_header(self, key: str) -> None:
        """Name, what it trains (from its own recipe: a resumed run names its own corpus),
        and folder of the run selected in the list."""
        if key != self.run_list.current_key():
            return
        series = self.series.get(key)
        if series is None:
            self.run_header.setText(NO_RUN)
            return
        if series.description is None and Path(key).is_dir():  # read once, when it exists
            series.description = ""
            with contextlib.suppress(OSError):  # an unreadable folder: no description
                series.description = self.controller.backend.training.describe_run(key)
        state = " (training here)" if series.live else " (followed)" if series.followed else ""
        folder = key if Path(key).is_dir() else "its folder is made when training starts"
        what = f" — {series.description}" if series.description else ""
        self.run_header.setText(f"<b>{html.escape(series.name)}</b>{state}"
                                f"{html.escape(what)}<br><small>{test_line(series)}"
                                f"{html.escape(folder)}</small>")
        self.run_header.setToolTip("The run selected in the run list; its samples are below it.")



def test_line(series: RunSeries) -> str:
    """The run's test figure for the header ('' when it has none yet)."""
    test = series.test
    if test is None:
        return ""
    best = series.best_validation()
    versus = f" (best validation {best[1]:.3f})" if best is not None else ""
    return (f"<b>test loss {test.test_loss:.3f}</b>{versus}, {test.checkpoint} checkpoint "
            f"of step {test.checkpoint_step:,} · ")


def _with_series(read: JobSpec) -> JobSpec:
    """The run-reading query, also turning the record's events into the curves' columns on
    the query thread: a run of millions of lines would hold the GUI thread for seconds."""

    def job(control) -> Iterator[Event]:
        for event in read.job(control):
            if isinstance(event, JobFinished) and event.result is not None:
                record = event.result
                fresh = RunSeries(str(record.path), record.name, "", task=record.task,
                                  grad_clip=record.grad_clip)
                for logged in record.events:
                    fresh.add(logged)
                fresh.samples = list(record.samples)
                fresh.version += 1
                record.events = []  # the columns hold them now
                event = JobFinished(result=(record, fresh))
            yield event

    return JobSpec(read.title, job)
